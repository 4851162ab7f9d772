//! The BERT encoder forward pass (inference only, one sequence at a time, so no padding
//! and no attention mask): embeddings → N × (self-attention, feed-forward) → hidden
//! states. Weights are PyTorch `Linear` layout, `[out, in]`; products go through
//! `matrixmultiply::sgemm` with strides, so nothing is transposed in memory.

use std::ops::Range;

use crate::weights::Weights;
use crate::EmbedError;

/// The shape of the network, read from the model's `config.json`.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub vocab: usize,
    pub hidden: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub max_positions: usize,
    pub type_vocab: usize,
    pub layer_norm_eps: f32,
}

impl Shape {
    pub fn from_config(config: &serde_json::Value) -> Result<Shape, EmbedError> {
        let get = |key: &str| {
            config[key]
                .as_u64()
                .map(|v| v as usize)
                .ok_or_else(|| EmbedError::Model(format!("config.json has no {key}")))
        };
        if config["hidden_act"].as_str().unwrap_or("gelu") != "gelu" {
            return Err(EmbedError::Model(
                "only the GELU activation is supported".into(),
            ));
        }
        let shape = Shape {
            vocab: get("vocab_size")?,
            hidden: get("hidden_size")?,
            heads: get("num_attention_heads")?,
            intermediate: get("intermediate_size")?,
            layers: get("num_hidden_layers")?,
            max_positions: get("max_position_embeddings")?,
            type_vocab: get("type_vocab_size")?,
            layer_norm_eps: config["layer_norm_eps"].as_f64().unwrap_or(1e-12) as f32,
        };
        if shape.heads == 0 || !shape.hidden.is_multiple_of(shape.heads) {
            return Err(EmbedError::Model(
                "hidden size is not a multiple of the heads".into(),
            ));
        }
        Ok(shape)
    }
}

struct Linear {
    /// Wᵀ, inputs × outputs, row-major: the product reads it row by row. Stored as the
    /// checkpoint has it (outputs × inputs), every product first gathered it column by
    /// column into the kernel's panels, which took twice the multiplication's own time.
    weight_t: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

#[derive(Default)]
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    intermediate: Linear,
    output: Linear,
    output_norm: Norm,
}

pub struct Bert {
    shape: Shape,
    words: Vec<f32>,
    positions: Vec<f32>,
    token_types: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

impl Bert {
    pub fn new(shape: Shape, mut weights: Weights) -> Result<Bert, EmbedError> {
        let h = shape.hidden;
        let mut linear =
            |name: &str, inputs: usize, outputs: usize| -> Result<Linear, EmbedError> {
                Ok(Linear::new(
                    &weights.take(&format!("{name}.weight"), &[outputs, inputs])?,
                    weights.take(&format!("{name}.bias"), &[outputs])?,
                    inputs,
                    outputs,
                ))
            };
        let mut layers = Vec::with_capacity(shape.layers);
        for i in 0..shape.layers {
            let p = format!("encoder.layer.{i}");
            layers.push(Layer {
                query: linear(&format!("{p}.attention.self.query"), h, h)?,
                key: linear(&format!("{p}.attention.self.key"), h, h)?,
                value: linear(&format!("{p}.attention.self.value"), h, h)?,
                attention_out: linear(&format!("{p}.attention.output.dense"), h, h)?,
                attention_norm: Norm::default(),
                intermediate: linear(&format!("{p}.intermediate.dense"), h, shape.intermediate)?,
                output: linear(&format!("{p}.output.dense"), shape.intermediate, h)?,
                output_norm: Norm::default(),
            });
        }
        let mut norm = |name: &str| -> Result<Norm, EmbedError> {
            Ok(Norm {
                gamma: weights.take(&format!("{name}.weight"), &[h])?,
                beta: weights.take(&format!("{name}.bias"), &[h])?,
            })
        };
        for (i, layer) in layers.iter_mut().enumerate() {
            layer.attention_norm = norm(&format!("encoder.layer.{i}.attention.output.LayerNorm"))?;
            layer.output_norm = norm(&format!("encoder.layer.{i}.output.LayerNorm"))?;
        }
        let embedding_norm = norm("embeddings.LayerNorm")?;
        Ok(Bert {
            words: weights.take("embeddings.word_embeddings.weight", &[shape.vocab, h])?,
            positions: weights.take(
                "embeddings.position_embeddings.weight",
                &[shape.max_positions, h],
            )?,
            token_types: weights.take(
                "embeddings.token_type_embeddings.weight",
                &[shape.type_vocab, h],
            )?,
            embedding_norm,
            layers,
            shape,
        })
    }

    pub fn max_positions(&self) -> usize {
        self.shape.max_positions
    }

    /// Hidden states of the last layer for several sequences at once, stacked row-wise
    /// (`Σ len × hidden`). Every layer but attention works row by row, so stacking the
    /// sequences shares one pass over each weight matrix; attention stays within a
    /// sequence. Sequences must already fit `max_positions`.
    pub fn forward(&self, sequences: &[Vec<u32>]) -> Vec<f32> {
        let h = self.shape.hidden;
        let spans = spans(sequences);
        let rows = spans.last().map_or(0, |s| s.end);
        let mut x = vec![0f32; rows * h];
        for (ids, span) in sequences.iter().zip(&spans) {
            for (t, &id) in ids.iter().enumerate() {
                let word = &self.words[(id as usize).min(self.shape.vocab - 1) * h..][..h];
                let position = &self.positions[t * h..][..h];
                let row = &mut x[(span.start + t) * h..][..h];
                for j in 0..h {
                    row[j] = word[j] + position[j] + self.token_types[j];
                }
            }
        }
        self.embedding_norm
            .apply(&mut x, h, self.shape.layer_norm_eps);
        for layer in &self.layers {
            x = self.layer_forward(layer, x, &spans);
        }
        x
    }

    fn layer_forward(&self, layer: &Layer, x: Vec<f32>, spans: &[Range<usize>]) -> Vec<f32> {
        let h = self.shape.hidden;
        let eps = self.shape.layer_norm_eps;
        let rows = x.len() / h;
        let q = layer.query.apply(&x, rows);
        let k = layer.key.apply(&x, rows);
        let v = layer.value.apply(&x, rows);
        let mut context = vec![0f32; rows * h];
        for span in spans {
            let part = span.start * h..span.end * h;
            self.attention(
                &q[part.clone()],
                &k[part.clone()],
                &v[part.clone()],
                &mut context[part],
            );
        }
        let mut attended = layer.attention_out.apply(&context, rows);
        add(&mut attended, &x);
        layer.attention_norm.apply(&mut attended, h, eps);
        let mut inner = layer.intermediate.apply(&attended, rows);
        inner.iter_mut().for_each(|v| *v = gelu(*v));
        let mut out = layer.output.apply(&inner, rows);
        add(&mut out, &attended);
        layer.output_norm.apply(&mut out, h, eps);
        out
    }

    /// Multi-head scaled dot-product attention over one unpadded sequence, written into
    /// `context` (the sequence's rows).
    fn attention(&self, q: &[f32], k: &[f32], v: &[f32], context: &mut [f32]) {
        let h = self.shape.hidden;
        let n = q.len() / h;
        let d = h / self.shape.heads;
        let scale = 1.0 / (d as f32).sqrt();
        let mut scores = vec![0f32; n * n];
        for head in 0..self.shape.heads {
            let off = head * d;
            // Safety (both products): q, k, v and context hold n×h floats and scores n×n;
            // the head's d columns start at `off` < h, so every strided read stays inside.
            // scores = Q_h · K_hᵀ · scale (K_hᵀ read through strides).
            unsafe {
                matrixmultiply::sgemm(
                    n,
                    d,
                    n,
                    scale,
                    q[off..].as_ptr(),
                    h as isize,
                    1,
                    k[off..].as_ptr(),
                    1,
                    h as isize,
                    0.0,
                    scores.as_mut_ptr(),
                    n as isize,
                    1,
                );
            }
            for row in scores.chunks_exact_mut(n) {
                softmax(row);
            }
            // context_h = softmax(scores) · V_h, written into the head's columns.
            unsafe {
                matrixmultiply::sgemm(
                    n,
                    n,
                    d,
                    1.0,
                    scores.as_ptr(),
                    n as isize,
                    1,
                    v[off..].as_ptr(),
                    h as isize,
                    1,
                    0.0,
                    context[off..].as_mut_ptr(),
                    h as isize,
                    1,
                );
            }
        }
    }
}

/// Row ranges of each sequence in the stacked matrix.
pub fn spans(sequences: &[Vec<u32>]) -> Vec<Range<usize>> {
    let mut start = 0;
    sequences
        .iter()
        .map(|ids| {
            let span = start..start + ids.len();
            start = span.end;
            span
        })
        .collect()
}

impl Linear {
    /// A layer of `outputs × inputs` weights `w` (the checkpoint's layout).
    fn new(w: &[f32], bias: Vec<f32>, inputs: usize, outputs: usize) -> Linear {
        let mut weight_t = vec![0f32; w.len()];
        for (o, row) in w.chunks_exact(inputs).enumerate() {
            for (i, &v) in row.iter().enumerate() {
                weight_t[i * outputs + o] = v;
            }
        }
        Linear {
            weight_t,
            bias,
            inputs,
            outputs,
        }
    }

    /// `x · Wᵀ + b` for `rows` rows of `inputs` values.
    fn apply(&self, x: &[f32], rows: usize) -> Vec<f32> {
        assert_eq!(
            x.len(),
            rows * self.inputs,
            "input width must match the layer"
        );
        let mut y = vec![0f32; rows * self.outputs];
        // Safety: the slices hold exactly rows×inputs, inputs×outputs and rows×outputs
        // floats (checked above and at load), which is what the strides address.
        unsafe {
            matrixmultiply::sgemm(
                rows,
                self.inputs,
                self.outputs,
                1.0,
                x.as_ptr(),
                self.inputs as isize,
                1,
                self.weight_t.as_ptr(),
                self.outputs as isize,
                1,
                0.0,
                y.as_mut_ptr(),
                self.outputs as isize,
                1,
            );
        }
        for row in y.chunks_exact_mut(self.outputs) {
            add(row, &self.bias);
        }
        y
    }
}

impl Norm {
    fn apply(&self, x: &mut [f32], width: usize, eps: f32) {
        for row in x.chunks_exact_mut(width) {
            let mean = row.iter().sum::<f32>() / width as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / width as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.gamma).zip(&self.beta) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

fn add(into: &mut [f32], other: &[f32]) {
    into.iter_mut().zip(other).for_each(|(a, b)| *a += b);
}

fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    row.iter_mut().for_each(|v| *v /= sum);
}

/// The exact (erf) GELU that BERT was trained with, not the tanh approximation.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
}

/// erf to within 1.5e-7 (Abramowitz & Stegun 7.1.26), below f32's resolution here.
fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs() as f64);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-(x as f64) * (x as f64)).exp();
    (if x < 0.0 { -y } else { y }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_and_gelu_match_reference_values() {
        // erf(0.5) = 0.5204998778, erf(-1) = -0.8427007929, GELU(1) = 0.8413447461.
        assert!((erf(0.5) - 0.520_499_9).abs() < 1e-6);
        assert!((erf(-1.0) + 0.842_700_8).abs() < 1e-6);
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert_eq!(gelu(0.0), 0.0);
    }

    #[test]
    fn softmax_rows_sum_to_one_and_keep_order() {
        let mut row = [1.0, 3.0, 2.0];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[1] > row[2] && row[2] > row[0]);
    }

    #[test]
    fn linear_layers_multiply_by_the_transposed_weight_and_add_the_bias() {
        // W = [[1,2],[3,4],[5,6]] (3 outputs × 2 inputs), x = [1, 10].
        let layer = Linear::new(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], vec![0.5, 0.0, -1.0], 2, 3);
        assert_eq!(layer.apply(&[1.0, 10.0], 1), [21.5, 43.0, 64.0]);
    }
}
