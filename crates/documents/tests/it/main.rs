//! The documents crate's one test binary (issue 36: one per crate, linked once): documents read
//! back with the tools a person or a scanner stands for (poppler, zbarimg, dmtxread).

mod codes;
mod scripts;
