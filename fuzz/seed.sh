#!/usr/bin/env bash
# Builds the seed corpus (fuzz/target/seeds/TARGET/, not committed) from the repository's
# own files as they are now: kernels (scripts/, tests/kernels/), their objects, command
# scripts, sessions, and a few packet streams as gdb and lldb send them. Copies in the
# repository would go stale as the kernels change; `.ci/run` runs this before fuzzing.
# Needs target/release/wavedbg (cargo build --release).
set -euo pipefail
cd "$(dirname "$0")/.."
wavedbg=target/release/wavedbg
out=fuzz/target/seeds
rm -rf "$out"
mkdir -p "$out"/{assemble,object,command,session,packets}

kernels=(scripts/*.s scripts/bugs/*.s scripts/replay/*.s tests/kernels/*.s)
for k in "${kernels[@]}"; do
  name=$(basename "$k" .s)
  cp "$k" "$out/assemble/$name.s"
  "$wavedbg" asm "$k" -o "$out/object/$name.wko" >/dev/null 2>&1
done
for s in scripts/replay/*.wdb scripts/bugs/*.wdb; do
  cp "$s" "$out/command/$(basename "$s")"
  cp "$s" "$out/session/$(basename "$s")"
done
cp sessions/*.ron "$out/session/"

# Packet streams: `$BODY#CHECKSUM`, each preceded by the ack gdb sends.
pkt() {
  local body=$1 sum=0 i
  for ((i = 0; i < ${#body}; i++)); do
    sum=$(((sum + $(printf '%d' "'${body:i:1}")) % 256))
  done
  printf '+$%s#%02x' "$body" "$sum"
}
{
  pkt 'qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vfork-events+;exec-events+;vContSupported+;QThreadEvents+;no-resumed+;memory-tagging+'
  pkt 'vMustReplyEmpty'
  pkt 'QStartNoAckMode'
} >"$out/packets/gdb-handshake"
{
  pkt 'qSupported:multiprocess+;swbreak+;hwbreak+'
  pkt 'qXfer:features:read:target.xml:0,ffb'
  pkt '?'
  pkt 'qfThreadInfo'
  pkt 'qsThreadInfo'
  pkt 'Hg2'
  pkt 'g'
  pkt 'p10'
  pkt 'm100000000,40'
  pkt 'qThreadExtraInfo,1'
} >"$out/packets/gdb-inspect"
{
  pkt 'qSupported:multiprocess+;swbreak+;hwbreak+'
  pkt 'Z0,20,1'
  pkt 'vCont;c'
  pkt 'z0,20,1'
  pkt 'Z2,100000000,4'
  pkt 'vCont;s:1'
  pkt 'c'
  pkt 'qRcmd,696e666f20776176657320'
  pkt 'D'
} >"$out/packets/gdb-run"
{
  pkt 'QStartNoAckMode'
  pkt 'qHostInfo'
  pkt 'qProcessInfo'
  pkt 'jThreadsInfo'
  pkt 'x100000000,10'
  pkt 'M100000000,4:01020304'
  pkt 'X100000000,0:'
  pkt 'k'
} >"$out/packets/lldb"
{
  pkt '!'
  pkt 'qSupported'
  pkt 'vRun;'
  pkt 'bc'
  pkt 'bs'
  pkt 'vKill;1'
  printf '\x03---$bad#00'
} >"$out/packets/extended-and-noise"
echo "seeds: $(find "$out" -type f | wc -l) files in $out"
