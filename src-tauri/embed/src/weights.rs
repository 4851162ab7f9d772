//! Reads a `.safetensors` file: an 8-byte little-endian header length, a JSON header
//! naming each tensor's dtype, shape and byte range, then the raw data. Only F32 tensors
//! are taken (the model ships in F32); anything else is reported, not guessed at.

use std::collections::HashMap;

use crate::EmbedError;

pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

pub struct Weights {
    tensors: HashMap<String, Tensor>,
}

impl Weights {
    pub fn parse(bytes: &[u8]) -> Result<Weights, EmbedError> {
        let bad = |why: &str| EmbedError::Model(format!("model.safetensors: {why}"));
        let header_len = bytes
            .get(..8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
            .ok_or_else(|| bad("shorter than its header"))?;
        let header_end = 8usize
            .checked_add(header_len)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| bad("header runs past the end of the file"))?;
        let header: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&bytes[8..header_end])
                .map_err(|e| bad(&format!("header is not JSON ({e})")))?;
        let data = &bytes[header_end..];
        let mut tensors = HashMap::new();
        for (name, info) in header {
            if name == "__metadata__" {
                continue;
            }
            let dtype = info["dtype"].as_str().unwrap_or("");
            if dtype != "F32" {
                // position_ids (I64) is a buffer the encoder does not need.
                continue;
            }
            let shape: Vec<usize> = info["shape"]
                .as_array()
                .map(|dims| {
                    dims.iter()
                        .filter_map(|d| d.as_u64())
                        .map(|d| d as usize)
                        .collect()
                })
                .ok_or_else(|| bad(&format!("{name} has no shape")))?;
            let range = info["data_offsets"]
                .as_array()
                .and_then(|r| Some((r.first()?.as_u64()? as usize, r.get(1)?.as_u64()? as usize)))
                .ok_or_else(|| bad(&format!("{name} has no data offsets")))?;
            let raw = data
                .get(range.0..range.1)
                .ok_or_else(|| bad(&format!("{name} lies outside the file")))?;
            let count: usize = shape.iter().product();
            if raw.len() != count * 4 {
                return Err(bad(&format!(
                    "{name} has {} bytes for {count} floats",
                    raw.len()
                )));
            }
            let values = raw
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            tensors.insert(
                name,
                Tensor {
                    shape,
                    data: values,
                },
            );
        }
        Ok(Weights { tensors })
    }

    /// Removes and returns a tensor, checking its shape.
    pub fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>, EmbedError> {
        let tensor = self
            .tensors
            .remove(name)
            .ok_or_else(|| EmbedError::Model(format!("model.safetensors has no tensor {name}")))?;
        if tensor.shape != shape {
            return Err(EmbedError::Model(format!(
                "tensor {name} has shape {:?}, expected {shape:?}",
                tensor.shape
            )));
        }
        Ok(tensor.data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: &[f32]) -> Vec<u8> {
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        for v in data {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn reads_f32_tensors_by_name_and_checks_their_shape() {
        let header = r#"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"ids":{"dtype":"I64","shape":[1],"data_offsets":[16,24]}}"#;
        let mut bytes = file(header, &[1.0, 2.0, 3.0, 4.0]);
        bytes.extend_from_slice(&7i64.to_le_bytes());
        let mut weights = Weights::parse(&bytes).unwrap();
        assert!(weights.take("w", &[4]).is_err(), "a wrong shape is refused");
        let mut weights2 = Weights::parse(&bytes).unwrap();
        assert_eq!(weights2.take("w", &[2, 2]).unwrap(), [1.0, 2.0, 3.0, 4.0]);
        assert!(
            weights.take("ids", &[1]).is_err(),
            "non-float tensors are not loaded"
        );
    }

    #[test]
    fn truncated_files_are_reported_not_read_past() {
        let header = r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        let bytes = file(header, &[1.0, 2.0]);
        let err = Weights::parse(&bytes).err().expect("must fail").to_string();
        assert!(err.contains("outside the file"), "{err}");
        assert!(Weights::parse(&[1, 2, 3]).is_err());
        assert!(Weights::parse(&file("{not json", &[])).is_err());
    }
}
