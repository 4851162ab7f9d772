//! Reads a `.safetensors` file: an 8-byte little-endian header length, a JSON header
//! naming each tensor's dtype, shape and byte range, then the raw data. F32 tensors are
//! taken as they are (the model ships in F32); an I8 matrix comes with an F32 tensor
//! `<name>.scale` holding one scale per row, and is read as `value × scale` (the
//! answerability tuning ships its layers that way, at a quarter of the size). Other
//! dtypes are skipped (position_ids, an I64 buffer the encoder does not need).

use std::collections::HashMap;

use crate::EmbedError;

/// What is wrong with the model file.
fn bad(why: &str) -> EmbedError {
    EmbedError::Model(format!("model.safetensors: {why}"))
}

/// Replaces each int8 matrix's `<name>.scale` tensor with the matrix read as
/// `value × scale`, one scale per row.
fn dequantise(
    tensors: &mut HashMap<String, Tensor>,
    quantised: Vec<(String, Vec<usize>, Vec<i8>)>,
) -> Result<(), EmbedError> {
    for (name, shape, values) in quantised {
        let scale = tensors
            .remove(&format!("{name}.scale"))
            .filter(|t| t.shape == [shape[0]])
            .ok_or_else(|| bad(&format!("{name} is int8 without a scale per row")))?;
        let columns = shape[1];
        let data = values
            .chunks_exact(columns)
            .zip(&scale.data)
            .flat_map(|(row, s)| row.iter().map(move |&q| f32::from(q) * s))
            .collect();
        tensors.insert(name, Tensor { shape, data });
    }
    Ok(())
}

pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

pub struct Weights {
    tensors: HashMap<String, Tensor>,
}

impl Weights {
    pub fn parse(bytes: &[u8]) -> Result<Weights, EmbedError> {
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
        let mut quantised: Vec<(String, Vec<usize>, Vec<i8>)> = Vec::new();
        for (name, info) in header {
            if name == "__metadata__" {
                continue;
            }
            let dtype = info["dtype"].as_str().unwrap_or("");
            if dtype != "F32" && dtype != "I8" {
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
            if dtype == "I8" {
                if raw.len() != count || shape.len() != 2 {
                    return Err(bad(&format!(
                        "{name} has {} bytes for an int8 matrix of {count}",
                        raw.len()
                    )));
                }
                quantised.push((name, shape, raw.iter().map(|&b| b as i8).collect()));
                continue;
            }
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
        dequantise(&mut tensors, quantised)?;
        Ok(Weights { tensors })
    }

    /// Puts `other`'s tensors in place of this file's of the same name and shape: a
    /// tuned copy of some layers over the shipped model. A tensor this file lacks, or
    /// of another shape, is refused (the overlay was made for another model).
    pub fn overlay(&mut self, other: Weights) -> Result<usize, EmbedError> {
        let count = other.tensors.len();
        for (name, tensor) in other.tensors {
            match self.tensors.get(&name) {
                Some(base) if base.shape == tensor.shape => {
                    self.tensors.insert(name, tensor);
                }
                Some(base) => {
                    return Err(EmbedError::Model(format!(
                        "the tuned tensor {name} has shape {:?}, the model's {:?}",
                        tensor.shape, base.shape
                    )))
                }
                None => {
                    return Err(EmbedError::Model(format!(
                        "the tuned tensor {name} is not in the model"
                    )))
                }
            }
        }
        Ok(count)
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
    fn int8_matrices_are_read_with_their_row_scales_and_laid_over_a_model() {
        let header = r#"{"w":{"dtype":"I8","shape":[2,2],"data_offsets":[0,4]},"w.scale":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#;
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[2u8, 0xFE, 127, 0]); // 2, -2, 127, 0
        for v in [0.5f32, 0.01] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let tuned = Weights::parse(&bytes).unwrap();
        let mut base = Weights::parse(&file(
            r#"{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[1],"data_offsets":[16,20]}}"#,
            &[9.0, 9.0, 9.0, 9.0, 3.0],
        ))
        .unwrap();
        assert_eq!(base.overlay(tuned).unwrap(), 1);
        assert_eq!(base.take("w", &[2, 2]).unwrap(), [1.0, -1.0, 1.27, 0.0]);
        assert_eq!(
            base.take("b", &[1]).unwrap(),
            [3.0],
            "the rest stays the model's"
        );

        let no_scale = r#"{"w":{"dtype":"I8","shape":[1,2],"data_offsets":[0,2]}}"#;
        let mut bytes = (no_scale.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(no_scale.as_bytes());
        bytes.extend_from_slice(&[1, 2]);
        let err = Weights::parse(&bytes).err().expect("must fail").to_string();
        assert!(err.contains("without a scale"), "{err}");
        let mut base = Weights::parse(&file(
            r#"{"v":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
            &[1.0],
        ))
        .unwrap();
        let other = Weights::parse(&file(
            r#"{"u":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
            &[1.0],
        ))
        .unwrap();
        assert!(base.overlay(other).is_err(), "a tensor the model lacks");
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
