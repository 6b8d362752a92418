//! Terminal user interface for wavedbg (built on the debug engine).
