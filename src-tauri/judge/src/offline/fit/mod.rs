//! Measuring and fitting the offline judge: its support decision against human labels
//! (`calibration`) and the labelled dev sets the learned decisions are fitted on
//! (`dev_sets`; the fitting itself is `judge_check::fit`, beside the figures it reports).

pub mod calibration;
pub mod dev_sets;
