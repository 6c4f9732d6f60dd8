//! The integration tests: the real `orla` binary driven against a temporary
//! ORLA_HOME and cache, real git repositories and real HTTP servers on
//! 127.0.0.1. One test binary (one link of the crate and its dependencies);
//! each file is a module, named after what it covers. Run one area with
//! `cargo test --test it install::`.

mod common;

mod architecture;
mod builtin_registry;
mod cache;
mod catalog;
mod cli_output;
mod cli_surface;
mod client;
mod crash_and_concurrency;
mod disk_errors;
mod events;
mod export;
mod generated;
mod hostile_archives;
mod hostile_indexes;
mod index_kinds;
mod install;
mod manifest;
mod migrate_capsule;
mod newcomer;
mod orla_registry;
mod planted;
mod project;
mod properties;
mod registries;
mod rollback;
mod scaffold_wizard;
mod serve;
mod specs;
mod stalled_network;
mod tool_authoring;
mod tool_notifications;
mod tool_publish;
mod trust;
mod verify;
