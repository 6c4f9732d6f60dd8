//! Migrations from older formats to tool.yaml: `orla migrate capsule` turns
//! an RFC 2 capsule (`orla-tool.json`) into a tool package losing nothing.
//! The package model itself is in [`crate::package`]; this module only reads
//! the old formats and maps them onto it.

pub mod capsule;
pub mod directory;
