//! The operations a command runs, in one place: each takes the settings
//! `context` resolved, drives the stages (index, resolve, fetch, store,
//! manifest) and reports what it did as typed events. The command layer
//! (`commands`) reads arguments, calls one of these and prints.
//!
//! - `install`: plans, consent, downloads before the lock, apply and
//!   commit, requirements, project installs through orla.yaml and orla.lock;
//! - `uninstall`, `update`, `use_version` (`orla use`), `run` (a tool run
//!   from the cache without installing it);
//! - `info`, `search`: what the registries know;
//! - `list`: the manifest brought up to date for `orla list`;
//! - `verify`: installed packages re-hashed against their receipts;
//! - `export`: the manifest written for other runtimes (openwop, Runloop,
//!   Orloj).
//! - `serve`: the manifest `orla serve` hands the runtime, checked against
//!   the store each time.

pub mod export;
pub mod info;
pub mod install;
pub mod list;
pub mod run;
pub mod search;
pub mod serve;
pub mod uninstall;
pub mod update;
pub mod use_version;
pub mod verify;
