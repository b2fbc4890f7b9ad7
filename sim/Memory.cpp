//===- Memory.cpp - the simulator's address map and bounds checks ---------===//
//
// Global buffer i lives at (i + 1) << 40; shared memory is per CTA, addressed
// by offset in address space 3 and through a window in the generic space;
// address space 4 holds the AMD dispatch packet. Every access is checked
// against the object it lands in: an access that leaves its buffer, or
// shared memory beyond what the kernel declares, is a located error naming
// the buffer, the offset and the size.
//
//===----------------------------------------------------------------------===//
#include "sim/Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

std::string Machine::describeShared(uint64_t offset) const {
  for (const SharedGlobal &g : prog.shared)
    if (offset >= g.offset && offset < g.offset + g.size)
      return llvm::formatv("shared offset {0} (@{1} + {2})", offset, g.name,
                           offset - g.offset)
          .str();
  return llvm::formatv("shared offset {0}", offset).str();
}

std::string Machine::describeGlobal(uint64_t addr, uint64_t bytes) const {
  uint64_t index = (addr >> kBufferShift);
  // Just below a buffer (a negative offset) reads better than far above the
  // previous one.
  if (addr - (index << kBufferShift) >= (1ull << (kBufferShift - 1)))
    ++index;
  (void)bytes;
  if (index >= 1 && index <= buffers.size()) {
    const GlobalBuffer &b = buffers[index - 1];
    int64_t offset = int64_t(addr - (index << kBufferShift));
    unsigned eb = std::max(1u, b.elementBytes);
    return llvm::formatv("byte offset {0} of buffer '{1}' (element {2}; the "
                         "buffer has {3} elements of {4} bytes)",
                         offset, b.name, offset / int64_t(eb),
                         b.bytes.size() / eb, eb)
        .str();
  }
  return llvm::formatv("address {0:x}, which is in no buffer", addr).str();
}

uint8_t *Machine::resolve(Thread &t, uint32_t op, unsigned addrSpace,
                          uint64_t addr, uint64_t bytes, bool store,
                          uint64_t *sharedOffset, bool peerOk) {
  const char *what = store ? "store" : "load";
  if (addrSpace == 0 && addr >= kSharedWindow &&
      addr < kSharedWindow + (1ull << 40)) {
    addr -= kSharedWindow;
    addrSpace = 7;
  }
  // shared::cluster (7): this CTA's shared memory, or a peer's when the
  // address names one (mapa).
  if (addrSpace == 7) {
    addrSpace = 3;
    if (addr >> kClusterRankShift) {
      uint64_t offset;
      Machine *owner = clusterTarget(t, op, addr, offset);
      if (!owner)
        return nullptr;
      if (owner != this) {
        if (!peerOk) {
          setFault(op, llvm::formatv("{0}: the simulator implements loads, "
                                     "stores and atomics on another CTA's "
                                     "shared memory, not this op",
                                     threadName(t)));
          return nullptr;
        }
        *sharedOffset = offset;
        return peerShared(t, op, *owner, offset, bytes, store);
      }
      addr = offset;
    }
  }
  if (addrSpace == 3) {
    if (addr + bytes > prog.sharedBytes || addr + bytes < addr) {
      std::string globals;
      for (const SharedGlobal &g : prog.shared)
        globals +=
            llvm::formatv("{0}@{1} [{2}, {3})", globals.empty() ? "" : ", ",
                          g.name, g.offset, g.offset + g.size)
                .str();
      setFault(op, llvm::formatv("out-of-bounds shared-memory {0} of {1} "
                                 "bytes at shared offset {2} by {3}: the "
                                 "kernel has {4} bytes of shared memory{5}",
                                 what, bytes, int64_t(addr), threadName(t),
                                 prog.sharedBytes,
                                 globals.empty() ? "" : " (" + globals + ")"));
      return nullptr;
    }
    *sharedOffset = addr;
    return shared.data() + addr;
  }
  if (addrSpace == 4) {
    if (addr >= kDispatchPacket &&
        addr + bytes <= kDispatchPacket + dispatchPacket.size())
      return dispatchPacket.data() + (addr - kDispatchPacket);
    setFault(op, llvm::formatv("{0} of {1} bytes at constant address {2:x} "
                               "outside the dispatch packet",
                               what, bytes, addr));
    return nullptr;
  }
  if (addrSpace != 0 && addrSpace != 1) {
    setFault(op, llvm::formatv("{0} in address space {1} is not supported "
                               "by the simulator",
                               what, addrSpace));
    return nullptr;
  }
  if (addr >= kTensorMapWindow && addr < kDispatchPacket) {
    setFault(op, llvm::formatv("{0} through a tensor-map pointer: the "
                               "simulator keeps tensor maps opaque",
                               what));
    return nullptr;
  }
  uint64_t index = addr >> kBufferShift;
  if (index >= 1 && index <= buffers.size()) {
    GlobalBuffer &b = buffers[index - 1];
    uint64_t offset = addr - (index << kBufferShift);
    if (offset + bytes <= b.bytes.size())
      return b.bytes.data() + offset;
  }
  setFault(op, llvm::formatv("out-of-bounds global {0} of {1} bytes at {2} "
                             "by {3}",
                             what, bytes, describeGlobal(addr, bytes),
                             threadName(t)));
  return nullptr;
}
