#!/bin/sh
# VS Code starts this (with `sh`, from the extension's folder) as the debug adapter:
# `wavedbg dap` from the PATH, or the wavedbg that $WAVEDBG names.
exec "${WAVEDBG:-wavedbg}" dap "$@"
