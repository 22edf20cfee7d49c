//! Shared by the bench targets: stream generators, the floor, the peer, deltafold's drivers,
//! the fixture corpus, a timing harness and a counting allocator. Each bench target uses part
//! of it.

pub mod alloc;
pub mod contestants;
pub mod corpus;
pub mod floor;
pub mod generate;
pub mod hostile;
pub mod peer;
pub mod timing;
