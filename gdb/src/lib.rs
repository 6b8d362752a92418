//! GDB remote server for wavedbg (see issue: built on the debug engine).
