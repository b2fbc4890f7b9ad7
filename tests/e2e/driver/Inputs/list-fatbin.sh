#!/usr/bin/env bash
# Lists the architectures of the images in a fatbin. Uses cuobjdump where the
# toolkit has it; otherwise reads the fatbin headers (format: fatbinary.h).
set -euo pipefail
if command -v cuobjdump >/dev/null 2>&1; then
  cuobjdump --list-elf --list-ptx "$1"
  exit
fi
python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic, version, header_size, fat_size = struct.unpack_from("<IHHQ", data, 0)
assert magic == 0xBA55ED50, "not a fatbin"
off = header_size
end = header_size + fat_size
while off < end:
    kind, ver, hsize, padded = struct.unpack_from("<HHII", data, off)
    # fatBinaryEntry: kind(2) version(2) headerSize(4) paddedPayloadSize(4)
    # unknown(4) payloadSize(4) unknown(4) unknown(4) smVersion(4) ...
    sm = struct.unpack_from("<I", data, off + 28)[0]
    # Bit 20 of the word at +40 marks arch-specific ("a") images, as read off
    # fatbins made by CUDA 13.0's fatbinary.
    flags = struct.unpack_from("<I", data, off + 40)[0]
    arch = "sm_%d%s" % (sm, "a" if flags & 0x100000 else "")
    print(("ptx " if kind == 1 else "elf ") + arch)
    off += hsize + padded
PY
