//! Is the answer faithful to its passages? The claims labelled against every chunk
//! (`grounding`), the reasoning hops and abstention (`reasoning`), and the learned,
//! calibrated decisions (`learned`) over the signals in `features`.

pub mod features;
pub(super) mod grounding;
pub mod learned;
pub(super) mod reasoning;
