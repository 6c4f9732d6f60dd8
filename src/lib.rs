//! orla: the package manager for MCP tools.
//!
//! The crate is organised by pipeline stage, each a module with a small typed
//! interface (ARCHITECTURE.md has the map):
//!
//! spec -> [`index`] -> [`resolve`] -> [`fetch`] -> [`verify`] -> [`unpack`]
//! -> [`package`] (validate) -> [`store`] -> [`manifest`]
//!
//! [`cli`] describes the command line and [`commands`] holds one thin function
//! per command.

pub mod cli;
pub mod client;
pub mod commands;
pub mod config;
pub mod context;
pub mod error;
pub mod fetch;
pub mod fs;
pub mod git;
pub mod http;
pub mod index;
pub mod interrupt;
pub mod lock;
pub mod manifest;
pub mod migrate;
pub mod net;
pub mod ops;
pub mod package;
pub mod parallel;
pub mod progress;
pub mod project;
pub mod resolve;
pub mod root;
pub mod size;
pub mod store;
pub mod unpack;
pub mod verify;
