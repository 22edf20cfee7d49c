//! Nothing here: the contestants live in benches/peers.rs.
