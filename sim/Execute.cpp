//===- Execute.cpp - a warp's lanes at one pc, or one thread
//---------------===//
//
// The interpreter: a warp's lanes at the same pc run an instruction
// together (runWarp: lane ops over the whole group, loads and stores lane
// by lane, branches that may split the group), anything else one thread at
// a time (execute). Ops that need other threads (barriers, cross-lane ops,
// mbarrier waits) only mark the thread blocked here; Simulator.cpp and
// Collectives.cpp finish them.
//
//===----------------------------------------------------------------------===//
#include "sim/Float.h"
#include "sim/Machine.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace kcc::sim;
using namespace kcc::sim::detail;

namespace {

inline uint64_t maskOf(unsigned bits) {
  return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}
inline int64_t sext(uint64_t v, unsigned bits) {
  if (bits >= 64)
    return int64_t(v);
  unsigned s = 64 - bits;
  return int64_t(v << s) >> s;
}

/// Applies `f` to float operands of kind `ek`, natively for f32 and f64.
template <typename F32Fn, typename F64Fn>
inline uint64_t floatOp(EK ek, uint64_t a, uint64_t b, F32Fn f32, F64Fn f64) {
  switch (ek) {
  case EK::F32:
    return bitsOf(f32(asF32(a), asF32(b)));
  case EK::F64:
    return bitsOf(f64(asF64(a), asF64(b)));
  case EK::F16:
    return floatToHalf(f32(halfToFloat(uint16_t(a)), halfToFloat(uint16_t(b))));
  default:
    return floatToBF16(f32(bf16ToFloat(uint16_t(a)), bf16ToFloat(uint16_t(b))));
  }
}

bool fcmp(uint8_t pred, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  bool eq = x == y, lt = x<y, gt = x> y;
  switch (pred) {
  case 0:
    return false;
  case 1:
    return !unordered && eq;
  case 2:
    return !unordered && gt;
  case 3:
    return !unordered && (gt || eq);
  case 4:
    return !unordered && lt;
  case 5:
    return !unordered && (lt || eq);
  case 6:
    return !unordered && !eq;
  case 7:
    return !unordered;
  case 8:
    return unordered || eq;
  case 9:
    return unordered || gt;
  case 10:
    return unordered || gt || eq;
  case 11:
    return unordered || lt;
  case 12:
    return unordered || lt || eq;
  case 13:
    return unordered || !eq;
  case 14:
    return unordered;
  default:
    return true;
  }
}

/// The `n`-byte little-endian value at `p` (n <= 8); fixed sizes become
/// single moves (a variable-size memcpy was a library call per element).
inline uint64_t loadLE(const uint8_t *p, unsigned n) {
  switch (n) {
  case 1:
    return *p;
  case 2: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case 4: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case 8: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  default: {
    uint64_t v = 0;
    std::memcpy(&v, p, n);
    return v;
  }
  }
}

/// Writes the low `n` bytes of `x` at `p`, little-endian (n <= 8).
inline void storeLE(uint8_t *p, uint64_t x, unsigned n) {
  switch (n) {
  case 1:
    *p = uint8_t(x);
    return;
  case 2: {
    uint16_t v = uint16_t(x);
    std::memcpy(p, &v, 2);
    return;
  }
  case 4: {
    uint32_t v = uint32_t(x);
    std::memcpy(p, &v, 4);
    return;
  }
  default:
    std::memcpy(p, &x, n);
  }
}

/// NaN-propagating max/min with -0 < +0 (llvm.maximum / llvm.minimum).
double fmaximum(double x, double y, bool isMax) {
  if (std::isnan(x) || std::isnan(y))
    return std::nan("");
  if (x == y)
    return isMax ? (std::signbit(x) ? y : x) : (std::signbit(x) ? x : y);
  return isMax ? std::max(x, y) : std::min(x, y);
}

/// Reinterprets `lanes` elements of `bits` as elements of `dstBits`.
void bitcastLanes(RegPtr src, unsigned srcLanes, unsigned srcBits, RegPtr dst,
                  unsigned dstLanes, unsigned dstBits) {
  if (srcBits % 8 == 0 && dstBits % 8 == 0) {
    // Whole bytes (all but i1 vectors): through their little-endian bytes.
    uint8_t bytes[512];
    for (unsigned i = 0; i < srcLanes; ++i)
      storeLE(bytes + i * (srcBits / 8), src[i], srcBits / 8);
    for (unsigned i = 0; i < dstLanes; ++i)
      dst[i] = loadLE(bytes + i * (dstBits / 8), dstBits / 8);
    return;
  }
  uint64_t packed[64] = {};
  for (unsigned i = 0; i < srcLanes; ++i)
    for (unsigned b = 0; b < srcBits; ++b)
      if ((src[i] >> b) & 1) {
        unsigned pos = i * srcBits + b;
        packed[pos / 64] |= 1ull << (pos % 64);
      }
  for (unsigned i = 0; i < dstLanes; ++i) {
    uint64_t v = 0;
    for (unsigned b = 0; b < dstBits; ++b) {
      unsigned pos = i * dstBits + b;
      v |= ((packed[pos / 64] >> (pos % 64)) & 1) << b;
    }
    dst[i] = v;
  }
}

} // namespace

std::string Machine::threadName(const Thread &t) const {
  return llvm::formatv("thread {0} (warp {1}, lane {2}) of CTA ({3}, {4}, {5})",
                       t.tid, t.warp, t.lane, ctaId[0], ctaId[1], ctaId[2])
      .str();
}

mlir::Location Machine::locOf(uint32_t op) const {
  return prog.ops[op]->getLoc();
}

void Machine::setFault(uint32_t op, const llvm::Twine &message) {
  if (fault)
    return;
  fault = Fault{message.str(), op, {}};
}

bool Machine::execute(Thread &t, unsigned budget) {
  RegPtr R = t.regs;
  const Inst *code = prog.code.data();
  const uint32_t *aux = prog.aux.data();
  uint64_t *warpBase = warpRegs(t.warp);
  auto branch = [&](uint32_t at) {
    branchCopy(warpBase, at, 1ull << t.lane);
    t.pc = aux[at];
  };

  while (budget--) {
    const Inst &in = code[t.pc];
    ++instructions;
    if (in.flags & kReadsWgmmaAcc) [[unlikely]]
      if (!checkWgmmaAccRead(t, t.pc))
        return false;
    if (isLaneOp(in.opc)) {
      if (!warpOp(in, t.tid - t.lane, warpBase, 1ull << t.lane))
        return false;
      ++t.pc;
      continue;
    }
    if (isCollectiveOp(in.opc)) {
      // Needs the other lanes: wait until the warp's lanes are all here.
      t.state = TS::Collective;
      return true;
    }
    RegPtr r = R + in.res;
    RegPtr A = R + in.a, B = R + in.b;
    const uint64_t m = maskOf(in.bits);
    switch (in.opc) {
    case Opc::Load:
    case Opc::Store:
      if (!memoryOp(t, in))
        return false;
      break;
    case Opc::AtomicRMW:
    case Opc::CmpXchg: {
      // One thread's whole read-modify-write: the simulator runs one
      // thread at a time, so no other access falls between its halves.
      bool cas = in.opc == Opc::CmpXchg;
      uint64_t addr = A[0];
      unsigned bytes = in.bits / 8;
      if (addr % bytes) {
        setFault(in.op, llvm::formatv("misaligned atomic: address {0:x} is "
                                      "not a multiple of {1} bytes",
                                      addr, bytes));
        return false;
      }
      uint8_t *p = checkedAccess(t, in, addr, bytes, /*store=*/true,
                                 /*atomic=*/true);
      if (!p)
        return false;
      uint64_t old = loadLE(p, bytes), next = 0, y = B[0] & m;
      if (cas) {
        next = old == y ? (R[in.c] & m) : old;
        r[1] = old == y;
      } else {
        switch (AtomicOp(in.sub)) {
        case AtomicOp::Add:
          next = (old + y) & m;
          break;
        case AtomicOp::FAdd:
          next = floatOp(
              in.ek, old, y, [](float a, float b) { return a + b; },
              [](double a, double b) { return a + b; });
          break;
        case AtomicOp::SMin:
          next = sext(old, in.bits) < sext(y, in.bits) ? old : y;
          break;
        case AtomicOp::SMax:
          next = sext(old, in.bits) > sext(y, in.bits) ? old : y;
          break;
        case AtomicOp::FMinimum:
        case AtomicOp::FMaximum:
          next = fromDouble(fmaximum(toDouble(old, in.ek), toDouble(y, in.ek),
                                     AtomicOp(in.sub) == AtomicOp::FMaximum),
                            in.ek);
          break;
        case AtomicOp::Xchg:
          next = y;
          break;
        }
      }
      storeLE(p, next, bytes);
      r[0] = old;
      break;
    }
    case Opc::Mapa: {
      // The same offset in CTA `rank` of the cluster: a shared::cluster
      // address (or a generic one in the shared window) tagged with it.
      uint32_t to = uint32_t(B[0]);
      if (to >= cluster->ctas.size()) {
        setFault(in.op, llvm::formatv("{0} maps a shared address to CTA rank "
                                      "{1} (mapa), but its cluster has {2} "
                                      "CTA{3}",
                                      threadName(t), to, cluster->ctas.size(),
                                      cluster->ctas.size() == 1 ? "" : "s"));
        return false;
      }
      uint64_t x = A[0];
      bool generic = in.srcAddrSpace == 0;
      if (generic) {
        if (x < kSharedWindow || x >= kSharedWindow + (1ull << 40)) {
          setFault(in.op, llvm::formatv("mapa of generic address {0:x}, "
                                        "which is not in shared memory",
                                        x));
          return false;
        }
        x -= kSharedWindow;
      }
      x = (x & kClusterOffsetMask) | (uint64_t(to) + 1) << kClusterRankShift;
      r[0] = in.addrSpace == 0 ? x + kSharedWindow : x;
      break;
    }
    case Opc::Br:
      branch(in.aux);
      continue;
    case Opc::CondBr:
      branch((A[0] & 1) ? in.aux : in.c);
      continue;
    case Opc::Switch: {
      const uint32_t *s = aux + in.aux;
      uint64_t v = A[0] & maskOf(in.bits);
      uint32_t dest = s[0];
      for (uint32_t k = 0; k < s[1]; ++k) {
        const uint32_t *c = s + 2 + 3 * k;
        if (((uint64_t(c[0]) | (uint64_t(c[1]) << 32)) & maskOf(in.bits)) ==
            v) {
          dest = c[2];
          break;
        }
      }
      branch(dest);
      continue;
    }
    case Opc::Return:
      t.state = TS::Exited;
      t.exitPc = t.pc;
      return true;
    case Opc::Unreachable:
      setFault(in.op, "reached llvm.unreachable");
      return false;
    case Opc::Nop:
    case Opc::FenceProxyAsync:
      break;
    case Opc::Barrier:
      return arriveBarrier(t, in);
    case Opc::ClusterBarrier: {
      Step s = clusterBarrier(t, in);
      if (s == Step::Fault)
        return false;
      if (s == Step::Block)
        return true;
      break;
    }
    case Opc::Wgmma:
      // Needs its warpgroup (Wgmma.cpp).
      t.state = TS::Warpgroup;
      return true;
    case Opc::WgmmaCommit:
    case Opc::WgmmaWait:
      if (wgmmaGroupOp(t, in) == Step::Fault)
        return false;
      break;
    case Opc::TmemAlloc:
    case Opc::TmemDealloc:
    case Opc::Tcgen05Mma:
    case Opc::Tcgen05Commit:
    case Opc::TmemLd:
      if (tcgen05Op(t, in) == Step::Fault)
        return false;
      break;
    default: {
      Step s = asyncOp(t, in);
      if (s == Step::Fault)
        return false;
      if (s == Step::Block)
        return true;
      break;
    }
    }
    ++t.pc;
  }
  return true;
}

uint8_t *Machine::checkedAccess(Thread &t, const Inst &in, uint64_t addr,
                                uint64_t bytes, bool store, bool atomic,
                                uint64_t *ownShared) {
  // The common cases first, without resolve()'s address-space dispatch: an
  // in-bounds access to this CTA's shared memory or to a global buffer.
  // Anything else, and every fault report, goes through resolve().
  uint8_t *p = nullptr;
  uint64_t sharedOffset = ~0ull;
  Machine *owner = this;
  if (in.addrSpace == 3 && addr + bytes <= prog.sharedBytes &&
      addr + bytes >= addr) {
    p = shared.data() + addr;
    sharedOffset = addr;
  } else if (uint64_t index = addr >> kBufferShift;
             in.addrSpace == 1 && index >= 1 && index <= buffers.size() &&
             addr - (index << kBufferShift) + bytes <=
                 buffers[index - 1].bytes.size()) {
    p = buffers[index - 1].bytes.data() + (addr - (index << kBufferShift));
  } else {
    p = resolve(t, in.op, in.addrSpace, addr, bytes, store, &sharedOffset,
                /*peerOk=*/true);
    if (!p)
      return nullptr;
    if (accessPeer) // distributed shared memory: the peer's shadow checks it
      owner = std::exchange(accessPeer, nullptr);
  }
  if (sharedOffset == ~0ull)
    return globalAccess(t, in.op, addr, bytes, store, atomic) ? p : nullptr;
  if (!owner->sharedAccess(&t, in.op, sharedOffset, bytes, store, 0, atomic))
    return nullptr;
  if (ownShared && owner == this)
    *ownShared = sharedOffset;
  return p;
}

bool Machine::memoryOp(Thread &t, const Inst &in) {
  RegPtr R = t.regs;
  const unsigned L = in.lanes;
  bool store = in.opc == Opc::Store;
  uint64_t addr = store ? R[in.b] : R[in.a];
  unsigned elemBytes = in.bits == 1 ? 1 : in.bits / 8;
  uint64_t bytes = uint64_t(elemBytes) * L;
  uint64_t align = 1ull << in.sub;
  if (addr % align) {
    setFault(in.op, llvm::formatv("misaligned {0}: address {1:x} is not a "
                                  "multiple of the op's alignment {2} "
                                  "(the GPU faults or splits the access)",
                                  store ? "store" : "load", addr, align));
    return false;
  }
  uint64_t ownShared = ~0ull;
  uint8_t *p =
      checkedAccess(t, in, addr, bytes, store, /*atomic=*/false, &ownShared);
  if (!p)
    return false;
  if (ownShared != ~0ull && opts.bankConflicts)
    recordBankAccess(t, in, ownShared);
  if (store) {
    RegPtr v = R + in.a;
    for (unsigned i = 0; i < L; ++i)
      storeLE(p + i * elemBytes, v[i], elemBytes);
  } else {
    RegPtr r = R + in.res;
    for (unsigned i = 0; i < L; ++i) {
      uint64_t x = loadLE(p + i * elemBytes, elemBytes);
      r[i] = in.bits == 1 ? x != 0 : x;
    }
  }
  return true;
}

bool Machine::warpMemoryOp(const Inst &in, uint32_t pc, uint32_t first,
                           uint64_t *base, uint64_t mask) {
  const unsigned W = opts.warpSize, L = in.lanes;
  const bool store = in.opc == Opc::Store;
  const uint64_t *addr = base + size_t(store ? in.b : in.a) * W;
  const unsigned elemBytes = in.bits == 1 ? 1 : in.bits / 8;
  const uint64_t bytes = uint64_t(elemBytes) * L, align = 1ull << in.sub;
  // The fast path: every lane's access aligned and inside this CTA's shared
  // memory or inside the global buffer of the first lane's address. Else
  // (generic pointers, a peer's shared memory, faults, bank accounting)
  // each lane goes through memoryOp.
  uint8_t *mem = nullptr;
  uint64_t lo = 0, size = 0;
  if (in.addrSpace == 3) {
    mem = shared.data();
    size = prog.sharedBytes;
  } else if (in.addrSpace == 1) {
    uint64_t index = addr[llvm::countr_zero(mask)] >> kBufferShift;
    if (index >= 1 && index <= buffers.size()) {
      mem = buffers[index - 1].bytes.data();
      lo = index << kBufferShift;
      size = buffers[index - 1].bytes.size();
    }
  }
  // (Elements of 1, 2, 4 or 8 bytes: others, rare, take memoryOp too.)
  bool fast = mem && !opts.bankConflicts && bytes <= size &&
              llvm::has_single_bit(elemBytes) && elemBytes <= 8;
  const uint64_t a0 = addr[llvm::countr_zero(mask)];
  bool uniform = true;
  for (uint64_t mm = mask; fast && mm; mm &= mm - 1) {
    uint64_t a = addr[llvm::countr_zero(mm)];
    // Below `lo`, a - lo wraps past size.
    fast = a % align == 0 && a - lo <= size - bytes;
    uniform &= a == a0;
  }
  if (!fast) {
    for (uint64_t mm = mask; mm; mm &= mm - 1) {
      Thread &t = threads[first + llvm::countr_zero(mm)];
      ++instructions;
      if (!memoryOp(t, in)) {
        t.pc = pc;
        return false;
      }
    }
    return true;
  }
  // The race shadow in lane order: stores and distinct lanes' reads in one
  // pass over the group; a broadcast read (every thread reads a
  // reduction's result) records the lanes after the first together.
  uint64_t done = 0;
  bool ok = true;
  const bool shared = in.addrSpace == 3;
  if (store || !uniform) {
    done = warpAccesses(shared, first, mask, in.op, addr, bytes, store);
  } else {
    for (uint64_t mm = mask; mm; mm &= mm - 1) {
      unsigned l = llvm::countr_zero(mm);
      if (done >> l & 1)
        continue;
      Thread &t = threads[first + l];
      if (!(shared ? threadSharedAccess(t, in.op, addr[l], bytes, false)
                   : threadGlobalAccess(t, in.op, addr[l], bytes, false)))
        break;
      done |= 1ull << l;
      done |=
          shared
              ? extendSharedReads(first, mm & (mm - 1), in.op, addr[l], bytes)
              : extendGlobalReads(first, mm & (mm - 1), in.op, addr[l], bytes);
    }
  }
  if (done != mask) {
    // The first lane not done faulted.
    threads[first + llvm::countr_zero(mask & ~done)].pc = pc;
    ++instructions;
    ok = false;
  }
  instructions += llvm::popcount(done);
  // Then the data of the lanes that got through. Stores lane by lane, in
  // lane order (lanes storing to one address leave the highest lane's
  // value); loads element by element.
  auto copy = [&](auto tag) {
    using T = decltype(tag);
    if (store) {
      const uint64_t *v = base + size_t(in.a) * W;
      for (uint64_t mm = done; mm; mm &= mm - 1) {
        unsigned l = llvm::countr_zero(mm);
        uint8_t *p = mem + (addr[l] - lo);
        for (unsigned i = 0; i < L; ++i) {
          T x = T(v[size_t(i) * W + l]);
          std::memcpy(p + i * sizeof(T), &x, sizeof(T));
        }
      }
      return;
    }
    for (unsigned i = 0; i < L; ++i) {
      uint64_t *r = base + size_t(in.res + i) * W;
      for (uint64_t mm = done; mm; mm &= mm - 1) {
        unsigned l = llvm::countr_zero(mm);
        T x;
        std::memcpy(&x, mem + (addr[l] - lo) + i * sizeof(T), sizeof(T));
        r[l] = in.bits == 1 ? x != 0 : uint64_t(x);
      }
    }
  };
  switch (elemBytes) {
  case 1:
    copy(uint8_t());
    break;
  case 2:
    copy(uint16_t());
    break;
  case 4:
    copy(uint32_t());
    break;
  default: // 8
    copy(uint64_t());
  }
  return ok;
}

bool kcc::sim::detail::isCollectiveOp(Opc opc) {
  switch (opc) {
  case Opc::Shfl:
  case Opc::Bpermute:
  case Opc::Swizzle:
  case Opc::ReadLane:
  case Opc::ReadFirstLane:
  case Opc::Dpp:
  case Opc::LdMatrix:
  case Opc::MmaSync:
  case Opc::Mfma:
    return true;
  default:
    return false;
  }
}

bool kcc::sim::detail::isLaneOp(Opc opc) {
  switch (opc) {
  case Opc::Add:
  case Opc::Sub:
  case Opc::Mul:
  case Opc::UDiv:
  case Opc::SDiv:
  case Opc::URem:
  case Opc::SRem:
  case Opc::And:
  case Opc::Or:
  case Opc::Xor:
  case Opc::Shl:
  case Opc::LShr:
  case Opc::AShr:
  case Opc::FAdd:
  case Opc::FSub:
  case Opc::FMul:
  case Opc::FDiv:
  case Opc::FRem:
  case Opc::FNeg:
  case Opc::ICmp:
  case Opc::FCmp:
  case Opc::Select:
  case Opc::SExt:
  case Opc::ZExt:
  case Opc::Trunc:
  case Opc::FPExt:
  case Opc::FPTrunc:
  case Opc::CvtF32x2ToF8x2:
  case Opc::CvtF8x2ToF16x2:
  case Opc::CvtPkF32ToFnuz:
  case Opc::CvtFnuzToF32:
  case Opc::SIToFP:
  case Opc::UIToFP:
  case Opc::FPToSI:
  case Opc::FPToUI:
  case Opc::Bitcast:
  case Opc::Copy:
  case Opc::PtrToInt:
  case Opc::IntToPtr:
  case Opc::AddrSpaceCast:
  case Opc::ExtractElement:
  case Opc::InsertElement:
  case Opc::ShuffleVector:
  case Opc::GEP:
  case Opc::FMax:
  case Opc::FMin:
  case Opc::FMaxNum:
  case Opc::FMinNum:
  case Opc::SMax:
  case Opc::SMin:
  case Opc::UMax:
  case Opc::UMin:
  case Opc::FAbs:
  case Opc::Fma:
  case Opc::Sqrt:
  case Opc::Exp:
  case Opc::Exp2:
  case Opc::Log:
  case Opc::Log2:
  case Opc::Floor:
  case Opc::Ceil:
  case Opc::FTrunc:
  case Opc::Round:
  case Opc::CopySign:
  case Opc::CtPop:
  case Opc::Abs:
  case Opc::Rsqrt:
  case Opc::Rcp:
  case Opc::ThreadId:
  case Opc::BlockId:
  case Opc::BlockDim:
  case Opc::GridDim:
  case Opc::LaneId:
  case Opc::WarpSize:
  case Opc::DispatchPtr:
  case Opc::ClusterReg:
  case Opc::MbcntLo:
  case Opc::MbcntHi:
    return true;
  default:
    return false;
  }
}

void Machine::branchCopy(uint64_t *base, uint32_t at, uint64_t mask) {
  // Parallel copy of branch arguments: read all sources, then write.
  const uint32_t *aux = prog.aux.data();
  const unsigned W = opts.warpSize;
  uint32_t n = aux[at + 1];
  if (!n)
    return;
  size_t total = 0;
  for (uint32_t i = 0; i < n; ++i)
    total += aux[at + 4 + 3 * i];
  scratch.resize(std::max(scratch.size(), total * W));
  uint64_t *buf = scratch.data();
  auto each = [&](auto &&fn) {
    size_t k = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t *c = aux + at + 2 + 3 * i;
      for (uint32_t e = 0; e < c[2]; ++e, ++k)
        fn(base + size_t(c[0] + e) * W, base + size_t(c[1] + e) * W,
           buf + k * W);
    }
  };
  if (mask == fullMask()) {
    each([&](uint64_t *src, uint64_t *, uint64_t *tmp) {
      std::copy_n(src, W, tmp);
    });
    each([&](uint64_t *, uint64_t *dst, uint64_t *tmp) {
      std::copy_n(tmp, W, dst);
    });
    return;
  }
  for (uint64_t mm = mask; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    each([&](uint64_t *src, uint64_t *, uint64_t *tmp) { tmp[l] = src[l]; });
  }
  for (uint64_t mm = mask; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    each([&](uint64_t *, uint64_t *dst, uint64_t *tmp) { dst[l] = tmp[l]; });
  }
}

bool Machine::warpOp(const Inst &in, uint32_t first, uint64_t *base,
                     uint64_t mask) {
  const unsigned W = opts.warpSize, L = in.lanes, bits = in.bits;
  const uint32_t *aux = prog.aux.data();
  const uint64_t m = maskOf(bits);
  const bool full = mask == fullMask();
  auto at = [&](uint32_t s) { return base + size_t(s) * W; };
  // body(l) for each lane of `mask`. One slot of all lanes is contiguous, so
  // over a full warp this is a plain loop the compiler vectorizes.
  auto each = [&](auto body) {
    if (full) {
      for (unsigned l = 0; l < W; ++l)
        body(l);
    } else {
      for (uint64_t mm = mask; mm; mm &= mm - 1)
        body(unsigned(llvm::countr_zero(mm)));
    }
  };
  auto binary = [&](auto fn) {
    for (unsigned i = 0; i < L; ++i) {
      uint64_t *r = at(in.res + i);
      const uint64_t *a = at(in.a + i), *b = at(in.b + i);
      each([&](unsigned l) { r[l] = fn(a[l], b[l]); });
    }
    return true;
  };
  auto unary = [&](auto fn) {
    for (unsigned i = 0; i < L; ++i) {
      uint64_t *r = at(in.res + i);
      const uint64_t *a = at(in.a + i);
      each([&](unsigned l) { r[l] = fn(a[l]); });
    }
    return true;
  };
  // A float op on the elements' kind; f32 spelled out, the common case.
  auto floating = [&](auto f32, auto f64) {
    EK ek = in.ek;
    if (ek == EK::F32)
      return binary([f32](uint64_t x, uint64_t y) {
        return bitsOf(f32(asF32(x), asF32(y)));
      });
    return binary([ek, f32, f64](uint64_t x, uint64_t y) {
      return floatOp(ek, x, y, f32, f64);
    });
  };
  // Slots below the constants' end hold the same value in every lane.
  auto uniform = [&](uint32_t slot) { return slot < prog.constants.size(); };
  // A vector index operand in every lane, checked: false (a fault naming the
  // first lane's bad index) when one is out of range.
  auto indices = [&](uint32_t slot, uint64_t n, const char *what,
                     uint64_t *out) {
    bool ok = true;
    auto check = [&](uint64_t idx) {
      if (idx >= n && ok) {
        setFault(in.op, llvm::formatv("{0} index {1} is out of range for a "
                                      "vector of {2} (poison)",
                                      what, idx, n));
        ok = false;
      }
      return idx;
    };
    if (uniform(slot))
      out[llvm::countr_zero(mask)] =
          check(prog.constants[slot] & maskOf(in.srcBits));
    else
      each([&](unsigned l) {
        out[l] = check(at(slot)[l] & maskOf(in.srcBits));
      });
    return ok;
  };
  switch (in.opc) {
  case Opc::Add:
    return binary([m](uint64_t x, uint64_t y) { return (x + y) & m; });
  case Opc::Sub:
    return binary([m](uint64_t x, uint64_t y) { return (x - y) & m; });
  case Opc::Mul:
    return binary([m](uint64_t x, uint64_t y) { return (x * y) & m; });
  case Opc::And:
    return binary([](uint64_t x, uint64_t y) { return x & y; });
  case Opc::Or:
    return binary([](uint64_t x, uint64_t y) { return x | y; });
  case Opc::Xor:
    return binary([](uint64_t x, uint64_t y) { return x ^ y; });
  // A shift by >= the width is poison; the simulator yields 0.
  case Opc::Shl:
    return binary([m, bits](uint64_t x, uint64_t y) {
      return y >= bits ? 0 : (x << y) & m;
    });
  case Opc::LShr:
    return binary(
        [bits](uint64_t x, uint64_t y) { return y >= bits ? 0 : x >> y; });
  case Opc::AShr:
    return binary([m, bits](uint64_t x, uint64_t y) {
      return y >= bits ? 0 : uint64_t(sext(x, bits) >> y) & m;
    });
  case Opc::SMax:
    return binary([bits](uint64_t x, uint64_t y) {
      return sext(x, bits) > sext(y, bits) ? x : y;
    });
  case Opc::SMin:
    return binary([bits](uint64_t x, uint64_t y) {
      return sext(x, bits) < sext(y, bits) ? x : y;
    });
  case Opc::UMax:
    return binary([](uint64_t x, uint64_t y) { return x > y ? x : y; });
  case Opc::UMin:
    return binary([](uint64_t x, uint64_t y) { return x < y ? x : y; });
  case Opc::UDiv:
  case Opc::URem:
  case Opc::SDiv:
  case Opc::SRem: {
    bool isSigned = in.opc == Opc::SDiv || in.opc == Opc::SRem;
    const char *fault = nullptr;
    for (unsigned i = 0; i < L && !fault; ++i) {
      const uint64_t *a = at(in.a + i), *b = at(in.b + i);
      each([&](unsigned l) {
        if (fault)
          return;
        if (b[l] == 0)
          fault = "integer division by zero";
        else if (isSigned && sext(b[l], bits) == -1 &&
                 a[l] == (1ull << (bits - 1)))
          fault = "signed division overflow (MIN / -1)";
      });
    }
    if (fault) {
      setFault(in.op, fault);
      return false;
    }
    switch (in.opc) {
    case Opc::UDiv:
      return binary([](uint64_t x, uint64_t y) { return x / y; });
    case Opc::URem:
      return binary([](uint64_t x, uint64_t y) { return x % y; });
    case Opc::SDiv:
      return binary([m, bits](uint64_t x, uint64_t y) {
        return uint64_t(sext(x, bits) / sext(y, bits)) & m;
      });
    default:
      return binary([m, bits](uint64_t x, uint64_t y) {
        return uint64_t(sext(x, bits) % sext(y, bits)) & m;
      });
    }
  }
  case Opc::FAdd:
    return floating([](float x, float y) { return x + y; },
                    [](double x, double y) { return x + y; });
  case Opc::FSub:
    return floating([](float x, float y) { return x - y; },
                    [](double x, double y) { return x - y; });
  case Opc::FMul:
    return floating([](float x, float y) { return x * y; },
                    [](double x, double y) { return x * y; });
  case Opc::FDiv:
    return floating([](float x, float y) { return x / y; },
                    [](double x, double y) { return x / y; });
  case Opc::FNeg:
    return unary([bits](uint64_t x) { return x ^ (1ull << (bits - 1)); });
  case Opc::FAbs:
    return unary([bits](uint64_t x) { return x & ~(1ull << (bits - 1)); });
  case Opc::FMax:
  case Opc::FMin:
  case Opc::FMaxNum:
  case Opc::FMinNum: {
    EK ek = in.ek;
    bool isMax = in.opc == Opc::FMax || in.opc == Opc::FMaxNum;
    bool num = in.opc == Opc::FMaxNum || in.opc == Opc::FMinNum;
    if (ek == EK::F32 && !num) {
      // fmaximum on the bits, without branches: an order of the patterns
      // in which -0 < +0, and NaN (the canonical one) if either is.
      auto key = [](uint32_t u) {
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
      };
      auto pick = [key](uint64_t x, uint64_t y, auto better) -> uint64_t {
        uint32_t a = uint32_t(x), b = uint32_t(y);
        bool nan =
            (a & 0x7fffffffu) > 0x7f800000u || (b & 0x7fffffffu) > 0x7f800000u;
        uint32_t r = better(key(a), key(b)) ? a : b;
        return nan ? 0x7fc00000u : r;
      };
      if (isMax)
        return binary([pick](uint64_t x, uint64_t y) {
          return pick(x, y, [](uint32_t p, uint32_t q) { return p > q; });
        });
      return binary([pick](uint64_t x, uint64_t y) {
        return pick(x, y, [](uint32_t p, uint32_t q) { return p < q; });
      });
    }
    return binary([ek, isMax, num](uint64_t a, uint64_t b) {
      double x = toDouble(a, ek), y = toDouble(b, ek);
      // maxnum/minnum: a NaN operand yields the other one.
      if (num && std::isnan(x) != std::isnan(y))
        return std::isnan(x) ? b : a;
      return fromDouble(fmaximum(x, y, isMax), ek);
    });
  }
  case Opc::Fma:
    for (unsigned i = 0; i < L; ++i) {
      uint64_t *r = at(in.res + i);
      const uint64_t *a = at(in.a + i), *b = at(in.b + i), *c = at(in.c + i);
      EK ek = in.ek;
      if (ek == EK::F32)
        each([&](unsigned l) {
          r[l] = bitsOf(std::fma(asF32(a[l]), asF32(b[l]), asF32(c[l])));
        });
      else
        each([&](unsigned l) {
          r[l] = fromDouble(std::fma(toDouble(a[l], ek), toDouble(b[l], ek),
                                     toDouble(c[l], ek)),
                            ek);
        });
    }
    return true;
#define FLOAT_UNARY(OPC, FN)                                                   \
  case Opc::OPC: {                                                             \
    EK ek = in.ek;                                                             \
    if (ek == EK::F32)                                                         \
      return unary([](uint64_t v) {                                            \
        float x = asF32(v);                                                    \
        return bitsOf(float(FN));                                              \
      });                                                                      \
    if (ek == EK::F64)                                                         \
      return unary([](uint64_t v) {                                            \
        double x = asF64(v);                                                   \
        return bitsOf(double(FN));                                             \
      });                                                                      \
    return unary([ek](uint64_t v) {                                            \
      float x = float(toDouble(v, ek));                                        \
      return fromDouble(float(FN), ek);                                        \
    });                                                                        \
  }
    FLOAT_UNARY(Sqrt, std::sqrt(x))
    FLOAT_UNARY(Exp, std::exp(x))
    FLOAT_UNARY(Exp2, std::exp2(x))
    FLOAT_UNARY(Log, std::log(x))
    FLOAT_UNARY(Log2, std::log2(x))
    FLOAT_UNARY(Floor, std::floor(x))
    FLOAT_UNARY(Ceil, std::ceil(x))
    FLOAT_UNARY(FTrunc, std::trunc(x))
    FLOAT_UNARY(Round, std::round(x))
    FLOAT_UNARY(Rsqrt, 1 / std::sqrt(x))
    FLOAT_UNARY(Rcp, 1 / x)
#undef FLOAT_UNARY
  case Opc::ICmp: {
    // The predicate chosen once, not per element: each loop vectorizes.
    unsigned sh = 64 - bits;
    auto s = [sh](uint64_t x) { return int64_t(x << sh) >> sh; };
    switch (in.sub) {
    case 0:
      return binary([](uint64_t x, uint64_t y) -> uint64_t { return x == y; });
    case 1:
      return binary([](uint64_t x, uint64_t y) -> uint64_t { return x != y; });
    case 2:
      return binary(
          [s](uint64_t x, uint64_t y) -> uint64_t { return s(x) < s(y); });
    case 3:
      return binary(
          [s](uint64_t x, uint64_t y) -> uint64_t { return s(x) <= s(y); });
    case 4:
      return binary(
          [s](uint64_t x, uint64_t y) -> uint64_t { return s(x) > s(y); });
    case 5:
      return binary(
          [s](uint64_t x, uint64_t y) -> uint64_t { return s(x) >= s(y); });
    case 6:
      return binary([](uint64_t x, uint64_t y) -> uint64_t { return x < y; });
    case 7:
      return binary([](uint64_t x, uint64_t y) -> uint64_t { return x <= y; });
    case 8:
      return binary([](uint64_t x, uint64_t y) -> uint64_t { return x > y; });
    default:
      return binary([](uint64_t x, uint64_t y) -> uint64_t { return x >= y; });
    }
  }
  case Opc::FCmp:
    if (in.ek == EK::F32) {
      uint8_t pred = in.sub;
      return binary([pred](uint64_t x, uint64_t y) -> uint64_t {
        return fcmp(pred, asF32(x), asF32(y));
      });
    }
    break;
  case Opc::Select:
    for (unsigned i = 0; i < L; ++i) {
      uint64_t *r = at(in.res + i);
      const uint64_t *c = at(in.a + (in.sub ? i : 0)), *b = at(in.b + i),
                     *e = at(in.c + i);
      each([&](unsigned l) { r[l] = (c[l] & 1) ? b[l] : e[l]; });
    }
    return true;
  case Opc::ZExt:
  case Opc::Copy:
  case Opc::IntToPtr:
    return unary([](uint64_t x) { return x; });
  case Opc::Trunc:
  case Opc::PtrToInt:
    return unary([m](uint64_t x) { return x & m; });
  case Opc::SExt: {
    unsigned from = in.srcBits;
    return unary([m, from](uint64_t x) { return uint64_t(sext(x, from)) & m; });
  }
  case Opc::FPExt:
  case Opc::FPTrunc: {
    EK from = in.srcEk, to = in.ek;
    // The conversions of f16 and bf16 math through f32, spelled out.
    if (from == EK::F32 && to == EK::F16)
      return unary([](uint64_t x) { return floatToHalf(asF32(x)); });
    if (from == EK::F16 && to == EK::F32)
      return unary([](uint64_t x) { return bitsOf(halfToFloat(x)); });
    if (from == EK::F32 && to == EK::BF16)
      return unary([](uint64_t x) { return floatToBF16(asF32(x)); });
    if (from == EK::BF16 && to == EK::F32)
      return unary([](uint64_t x) { return bitsOf(bf16ToFloat(x)); });
    return unary(
        [from, to](uint64_t x) { return fromDouble(toDouble(x, from), to); });
  }
  case Opc::SIToFP: {
    unsigned from = in.srcBits;
    EK to = in.ek;
    return unary([from, to](uint64_t x) {
      return fromDouble(double(sext(x, from)), to);
    });
  }
  case Opc::UIToFP: {
    EK to = in.ek;
    return unary([to](uint64_t x) { return fromDouble(double(x), to); });
  }
  case Opc::Bitcast:
    if (in.c == L && in.srcBits == bits)
      return unary([](uint64_t x) { return x; });
    each([&](unsigned l) {
      bitcastLanes(RegPtr{at(in.a) + l, W}, in.c, in.srcBits,
                   RegPtr{at(in.res) + l, W}, L, bits);
    });
    return true;
  case Opc::ExtractElement: {
    uint64_t idx[64];
    if (!indices(in.b, in.c, "extractelement", idx))
      return false;
    uint64_t *r = at(in.res);
    if (uniform(in.b)) {
      const uint64_t *a = at(in.a + idx[llvm::countr_zero(mask)]);
      each([&](unsigned l) { r[l] = a[l]; });
    } else {
      each([&](unsigned l) { r[l] = at(in.a + idx[l])[l]; });
    }
    return true;
  }
  case Opc::InsertElement: {
    uint64_t idx[64];
    if (!indices(in.c, L, "insertelement", idx))
      return false;
    if (in.res != in.a) // else in place (Decoder::insertInPlace)
      for (unsigned i = 0; i < L; ++i) {
        uint64_t *r = at(in.res + i);
        const uint64_t *a = at(in.a + i);
        each([&](unsigned l) { r[l] = a[l]; });
      }
    const uint64_t *b = at(in.b);
    if (uniform(in.c)) {
      uint64_t *r = at(in.res + idx[llvm::countr_zero(mask)]);
      each([&](unsigned l) { r[l] = b[l]; });
    } else {
      each([&](unsigned l) { at(in.res + idx[l])[l] = b[l]; });
    }
    return true;
  }
  case Opc::ShuffleVector: {
    const uint32_t *mk = aux + in.aux;
    uint32_t n1 = mk[0];
    for (unsigned i = 0; i < L; ++i) {
      int32_t k = int32_t(mk[1 + i]);
      uint64_t *r = at(in.res + i);
      if (k < 0) {
        each([&](unsigned l) { r[l] = 0; });
        continue;
      }
      const uint64_t *src = uint32_t(k) < n1 ? at(in.a + k) : at(in.b + k - n1);
      each([&](unsigned l) { r[l] = src[l]; });
    }
    return true;
  }
  case Opc::GEP: {
    const uint32_t *g = aux + in.aux;
    uint64_t offset = uint64_t(g[0]) | (uint64_t(g[1]) << 32);
    const uint64_t *a = at(in.a);
    uint64_t *r = at(in.res);
    // A pass over the lanes per index: each is a loop that vectorizes.
    uint64_t addr[64];
    each([&](unsigned l) { addr[l] = a[l] + offset; });
    for (uint32_t k = 0; k < g[2]; ++k) {
      const uint32_t *d = g + 3 + 4 * k;
      int64_t scale = int64_t(uint64_t(d[1]) | (uint64_t(d[2]) << 32));
      const uint64_t *x = at(d[0]);
      unsigned from = d[3];
      each([&](unsigned l) { addr[l] += uint64_t(sext(x[l], from) * scale); });
    }
    each([&](unsigned l) { r[l] = addr[l]; });
    return true;
  }
  default:
    break;
  }
  // The rest, lane by lane: ids, rare conversions and ops whose faults
  // name the thread.
  for (uint64_t mm = mask; mm; mm &= mm - 1) {
    const unsigned lane = llvm::countr_zero(mm);
    RegPtr R{base + lane, W};
    RegPtr r = R + in.res;
    RegPtr A = R + in.a, B = R + in.b;
    switch (in.opc) {
    case Opc::FRem:
      for (unsigned i = 0; i < L; ++i)
        r[i] = floatOp(
            in.ek, A[i], B[i], [](float x, float y) { return std::fmod(x, y); },
            [](double x, double y) { return std::fmod(x, y); });
      break;
    case Opc::CopySign:
      for (unsigned i = 0; i < L; ++i) {
        uint64_t sign = 1ull << (in.bits - 1);
        r[i] = (A[i] & ~sign) | (B[i] & sign);
      }
      break;
    case Opc::CtPop:
      for (unsigned i = 0; i < L; ++i)
        r[i] = llvm::popcount(A[i]);
      break;
    case Opc::Abs:
      for (unsigned i = 0; i < L; ++i) {
        int64_t x = sext(A[i], in.bits);
        r[i] = uint64_t(x < 0 ? -x : x) & m;
      }
      break;
    case Opc::FCmp:
      for (unsigned i = 0; i < L; ++i)
        r[i] = fcmp(in.sub, toDouble(A[i], in.ek), toDouble(B[i], in.ek));
      break;
    case Opc::CvtF32x2ToF8x2: {
      F8 f = F8(in.sub);
      r[0] = floatToFloat8(asF32(B[0]), f);
      r[1] = floatToFloat8(asF32(A[0]), f);
      break;
    }
    case Opc::CvtF8x2ToF16x2:
      for (unsigned i = 0; i < 2; ++i) // exact: f16 holds every 8-bit float
        r[i] = floatToHalf(float(float8ToDouble(uint8_t(A[i]), F8(in.sub))));
      break;
    case Opc::CvtPkF32ToFnuz: {
      // Bytes 0, 1 (aux = wordSel 0) or 2, 3 of the old word: a, b.
      F8 f = F8(in.sub);
      unsigned shift = in.aux ? 16 : 0;
      uint64_t pair = floatToFloat8(asF32(A[0]), f) |
                      uint64_t(floatToFloat8(asF32(B[0]), f)) << 8;
      r[0] = ((R + in.c)[0] & ~(0xffffull << shift) & 0xffffffffull) |
             pair << shift;
      break;
    }
    case Opc::CvtFnuzToF32: // exact: f32 holds every 8-bit float
      r[0] = bitsOf(
          float(float8ToDouble(uint8_t(A[0] >> (8 * in.aux)), F8(in.sub))));
      break;
    case Opc::FPToSI:
    case Opc::FPToUI:
      for (unsigned i = 0; i < L; ++i) {
        double x = std::trunc(toDouble(A[i], in.srcEk));
        bool isSigned = in.opc == Opc::FPToSI;
        double lo = isSigned ? -std::ldexp(1.0, in.bits - 1) : 0;
        double hi =
            isSigned ? std::ldexp(1.0, in.bits - 1) : std::ldexp(1.0, in.bits);
        if (std::isnan(x) || x < lo || x >= hi) {
          setFault(in.op, llvm::formatv("{0} of {1}, which does not fit in "
                                        "i{2} (the result is poison)",
                                        isSigned ? "fptosi" : "fptoui",
                                        toDouble(A[i], in.srcEk), in.bits));
          return false;
        }
        r[i] = (isSigned ? uint64_t(int64_t(x)) : uint64_t(x)) & m;
      }
      break;
    case Opc::AddrSpaceCast:
      for (unsigned i = 0; i < L; ++i) {
        uint64_t x = A[i];
        // Shared (::cta or ::cluster) <-> generic through the shared
        // window, like the GPU's generic address space; global and generic
        // are the same addresses.
        bool fromShared = in.srcAddrSpace == 3 || in.srcAddrSpace == 7;
        bool toShared = in.addrSpace == 3 || in.addrSpace == 7;
        if (fromShared && in.addrSpace == 0)
          x += kSharedWindow;
        else if (in.srcAddrSpace == 0 && toShared) {
          if (x < kSharedWindow || x >= kSharedWindow + (1ull << 40)) {
            setFault(in.op, llvm::formatv("addrspacecast of generic address "
                                          "{0:x} to shared: it is not a "
                                          "shared-memory address",
                                          x));
            return false;
          }
          x -= kSharedWindow;
        }
        // shared::cta holds this CTA's addresses only (PTX leaves a peer's
        // undefined there).
        if (in.addrSpace == 3 && (x >> kClusterRankShift)) {
          uint64_t tag = x >> kClusterRankShift;
          if (tag - 1 != rank) {
            setFault(in.op,
                     llvm::formatv("{0} casts the shared::cluster address "
                                   "{1:x} of CTA rank {2} of its cluster to "
                                   "shared::cta, which only holds its own "
                                   "CTA's (rank {3})",
                                   threadName(threads[first + lane]), x,
                                   tag - 1, rank));
            return false;
          }
          x &= kClusterOffsetMask;
        }
        r[i] = x;
      }
      break;
    case Opc::ThreadId:
      r[0] = threads[first + lane].id[in.sub];
      break;
    case Opc::BlockId:
      r[0] = ctaId[in.sub];
      break;
    case Opc::BlockDim:
      r[0] = blockDim[in.sub];
      break;
    case Opc::GridDim:
      r[0] = gridDim[in.sub];
      break;
    case Opc::LaneId:
      r[0] = lane;
      break;
    case Opc::WarpSize:
      r[0] = opts.warpSize;
      break;
    case Opc::DispatchPtr:
      r[0] = kDispatchPacket;
      break;
    case Opc::ClusterReg:
      r[0] = clusterRegister(in.sub);
      break;
    case Opc::MbcntLo:
    case Opc::MbcntHi: {
      // Bits of the mask below this lane, in the low / high 32 lanes.
      uint64_t below = lane >= 64 ? ~0ull : (1ull << lane) - 1;
      uint32_t half =
          in.opc == Opc::MbcntLo ? uint32_t(below) : uint32_t(below >> 32);
      r[0] = (llvm::popcount(uint32_t(A[0]) & half) + B[0]) & m;
      break;
    }
    default:
      llvm_unreachable("not a lane op (isLaneOp)");
    }
  }
  return true;
}

bool Machine::runWarp(uint32_t w, unsigned budget, uint64_t &ran) {
  const unsigned W = opts.warpSize;
  const uint32_t first = w * W;
  uint64_t &queued = queuedLanes[w];
  ran = 0;
  // The lanes at the warp's lowest ready pc: lanes that diverged catch up
  // with the ones ahead (blocks are laid out so a join follows its arms).
  uint32_t pc = ~0u;
  uint64_t mask = 0;
  for (uint64_t mm = queued; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    uint32_t p = threads[first + l].pc;
    if (p < pc)
      pc = p, mask = 0;
    if (p == pc)
      mask |= 1ull << l;
  }
  if (!mask)
    return true;
  queued &= ~mask;
  ran = mask;
  uint64_t *base = warpRegs(w);
  const Inst *code = prog.code.data();
  const uint32_t *aux = prog.aux.data();
  auto leave = [&](uint64_t lanes, uint32_t at) {
    for (uint64_t mm = lanes; mm; mm &= mm - 1) {
      Thread &t = threads[first + llvm::countr_zero(mm)];
      t.pc = at;
      makeReady(t);
    }
  };
  // After a branch to `to`: lanes of the warp waiting there join; lanes
  // waiting before it get to run first (the group stops).
  auto arrive = [&](uint32_t to) {
    pc = to;
    for (uint64_t mm = queued; mm; mm &= mm - 1) {
      unsigned l = llvm::countr_zero(mm);
      uint32_t p = threads[first + l].pc;
      if (p == to) {
        mask |= 1ull << l;
        ran |= 1ull << l;
        queued &= ~(1ull << l);
      } else if (p < to) {
        return false;
      }
    }
    return true;
  };
  while (budget--) {
    const Inst &in = code[pc];
    if (!(in.flags & kReadsWgmmaAcc)) [[likely]] {
      if (isLaneOp(in.opc)) {
        instructions += llvm::popcount(mask);
        if (!warpOp(in, first, base, mask))
          return false;
        ++pc;
        continue;
      }
      if (in.opc == Opc::Load || in.opc == Opc::Store) {
        if (!warpMemoryOp(in, pc, first, base, mask))
          return false;
        ++pc;
        continue;
      }
      if (in.opc == Opc::Br || in.opc == Opc::CondBr) {
        instructions += llvm::popcount(mask);
        uint64_t taken = mask;
        if (in.opc == Opc::CondBr) {
          const uint64_t *cond = base + size_t(in.a) * W;
          taken = 0;
          for (uint64_t mm = mask; mm; mm &= mm - 1) {
            unsigned l = llvm::countr_zero(mm);
            taken |= (cond[l] & 1) << l;
          }
        }
        uint64_t other = mask & ~taken;
        if (taken)
          branchCopy(base, in.aux, taken);
        if (other)
          branchCopy(base, in.c, other);
        if (taken && other) {
          // Divergence: the arm laid out first runs on, the other waits.
          uint32_t on = aux[in.aux], off = aux[in.c];
          if (on > off) {
            std::swap(on, off);
            std::swap(taken, other);
          }
          leave(other, off);
          mask = taken;
          if (!arrive(on))
            break;
          continue;
        }
        if (!arrive(aux[taken ? in.aux : in.c]))
          break;
        continue;
      }
    }
    // A cross-lane op that every live lane of the warp reached together
    // runs at once over the group: tryCollective would fire it for exactly
    // these lanes once each had blocked there.
    if (isCollectiveOp(in.opc) && !queued) {
      uint32_t last = std::min(numThreads, first + W);
      uint64_t all = last - first == 64 ? ~0ull : (1ull << (last - first)) - 1;
      bool whole = true;
      for (uint64_t mm = all & ~mask; mm && whole; mm &= mm - 1)
        whole = threads[first + llvm::countr_zero(mm)].state == TS::Exited;
      if (whole) {
        instructions += llvm::popcount(mask);
        if (!collectiveOp(first, last, mask, in)) {
          for (uint64_t mm = mask; mm; mm &= mm - 1)
            threads[first + llvm::countr_zero(mm)].pc = pc;
          return false;
        }
        ++result.stats.collectives;
        ++pc;
        continue;
      }
    }
    // Any other op: each lane runs it alone, in lane order (a barrier's
    // arrivals may be counted together).
    if (in.opc == Opc::Barrier && !(in.flags & kReadsWgmmaAcc)) {
      if (!arriveBarrierGroup(first, mask, in, pc))
        return false;
    } else {
      for (uint64_t mm = mask; mm; mm &= mm - 1) {
        Thread &t = threads[first + llvm::countr_zero(mm)];
        t.pc = pc;
        if (!execute(t, 1))
          return false;
      }
    }
    // A cross-lane op the whole warp reached runs now (as stepWarp would
    // run it next), so the group goes on past it.
    if (threads[first + llvm::countr_zero(mask)].state == TS::Collective) {
      bool fired = false;
      if (!tryCollective(w, fired))
        return false;
    }
    // The group goes on only while every lane is ready at one pc.
    uint32_t next = threads[first + llvm::countr_zero(mask)].pc;
    bool together = true;
    for (uint64_t mm = mask; mm; mm &= mm - 1) {
      const Thread &t = threads[first + llvm::countr_zero(mm)];
      together &= t.state == TS::Ready && t.pc == next;
    }
    if (!together) {
      for (uint64_t mm = mask; mm; mm &= mm - 1) {
        Thread &t = threads[first + llvm::countr_zero(mm)];
        if (t.state == TS::Ready)
          makeReady(t);
      }
      return true;
    }
    // A barrier the group completed queued its lanes again.
    queued &= ~mask;
    if (next != pc + 1 && !arrive(next))
      break;
    pc = next;
  }
  leave(mask, pc);
  return true;
}
