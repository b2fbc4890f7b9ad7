//===- Collectives.cpp - cross-lane ops of a warp / wave ------------------===//
//
// A lane that reaches a cross-lane op blocks. Once no lane of its warp can
// run any further (each is blocked or exited), the lanes waiting at the same
// op execute it together:
//  - nvvm.shfl.sync follows the PTX ISA's pseudo-code (bfly/up/down/idx,
//    clamp and segment mask); every lane named in the membermask must be one
//    of those lanes, and every lane must be in its own membermask: a lane
//    that exited or waits elsewhere is a located error (on the GPU it hangs
//    or reads garbage), as is reading a lane outside the mask;
//  - ROCDL ops act on the lanes present (the EXEC mask): ds_bpermute and
//    ds_swizzle read 0 from inactive lanes, readlane reads the register
//    regardless, DPP keeps `old` (or writes 0 with bound_ctrl) when the
//    source lane is invalid.
//
//===----------------------------------------------------------------------===//
#include "sim/Machine.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

namespace {

/// ds_swizzle's source lane for `lane` (offset: the instruction's pattern).
unsigned swizzleSource(unsigned lane, uint32_t offset) {
  if (offset & 0x8000) {
    // Quad-permute mode: each lane of a group of 4 picks one.
    unsigned sel = (offset >> (2 * (lane & 3))) & 3;
    return (lane & ~3u) | sel;
  }
  unsigned andMask = offset & 0x1f, orMask = (offset >> 5) & 0x1f,
           xorMask = (offset >> 10) & 0x1f;
  unsigned inGroup = (((lane & 31) & andMask) | orMask) ^ xorMask;
  return (lane & ~31u) | inGroup;
}

/// DPP source lane for `lane` within a row of 16 (or the wave for wave
/// shifts); -1 when the control selects no valid lane.
int dppSource(unsigned lane, uint32_t ctrl, unsigned waveSize) {
  unsigned row = lane & ~15u, inRow = lane & 15;
  if (ctrl <= 0xff) // quad_perm
    return int((lane & ~3u) | ((ctrl >> (2 * (lane & 3))) & 3));
  if (ctrl >= 0x101 && ctrl <= 0x10f) { // row_shl
    int s = int(inRow) + int(ctrl & 0xf);
    return s < 16 ? int(row) + s : -1;
  }
  if (ctrl >= 0x111 && ctrl <= 0x11f) { // row_shr
    int s = int(inRow) - int(ctrl & 0xf);
    return s >= 0 ? int(row) + s : -1;
  }
  if (ctrl >= 0x121 && ctrl <= 0x12f) // row_ror
    return int(row + ((inRow + 16 - (ctrl & 0xf)) & 15));
  if (ctrl == 0x130) // wave_shl1
    return lane + 1 < waveSize ? int(lane + 1) : -1;
  if (ctrl == 0x134) // wave_rol1
    return int((lane + 1) % waveSize);
  if (ctrl == 0x138) // wave_shr1
    return lane ? int(lane - 1) : -1;
  if (ctrl == 0x13c) // wave_ror1
    return int((lane + waveSize - 1) % waveSize);
  if (ctrl == 0x140) // row_mirror
    return int(row + 15 - inRow);
  if (ctrl == 0x141) // row_half_mirror
    return int(row + (inRow & 8) + 7 - (inRow & 7));
  if (ctrl == 0x142) // row_bcast15: last lane of the previous row
    return row ? int(row - 1) : -1;
  if (ctrl == 0x143) // row_bcast31: lane 31 for rows 2 and 3
    return lane >= 32 ? 31 : -1;
  return -2; // unknown control
}

} // namespace

bool Machine::tryCollective(unsigned warp, bool &fired) {
  fired = false;
  unsigned first = warp * opts.warpSize;
  unsigned last = std::min(numThreads, first + opts.warpSize);
  for (unsigned i = first; i < last; ++i)
    if (threads[i].state == TS::Ready)
      return true; // a lane can still run: it may yet arrive
  // Lanes at each cross-lane op (by pc).
  llvm::SmallVector<uint32_t, 4> pcs;
  for (unsigned i = first; i < last; ++i)
    if (threads[i].state == TS::Collective &&
        llvm::find(pcs, threads[i].pc) == pcs.end())
      pcs.push_back(threads[i].pc);
  for (uint32_t pc : pcs) {
    uint64_t present = 0; // lanes at this op
    for (unsigned i = first; i < last; ++i)
      if (threads[i].state == TS::Collective && threads[i].pc == pc)
        present |= 1ull << (i - first);
    if (!collectiveOp(first, last, present, prog.code[pc]))
      return false;
    for (uint64_t mm = present; mm; mm &= mm - 1) {
      Thread &t = threads[first + llvm::countr_zero(mm)];
      ++t.pc;
      makeReady(t);
    }
    ++result.stats.collectives;
    fired = true;
  }
  return true;
}

bool Machine::collectiveOp(unsigned first, unsigned last, uint64_t present,
                           const Inst &in) {
  auto lane = [&](unsigned l) -> Thread & { return threads[first + l]; };
  // Whole-warp matrix ops write their own (several) result slots.
  if (in.opc == Opc::LdMatrix || in.opc == Opc::MmaSync || in.opc == Opc::Mfma)
    return warpMatrixOp(first, last, present, in);
  auto reg = [&](unsigned l, uint32_t slot) -> uint64_t & {
    return lane(l).regs[slot];
  };
  std::array<uint64_t, 64> out{};
  auto describe = [&](unsigned l) -> std::string {
    if (first + l >= numThreads)
      return llvm::formatv("lane {0}, which does not exist (the CTA has "
                           "{1} threads)",
                           l, numThreads)
          .str();
    Thread &o = lane(l);
    if (o.state == TS::Exited)
      return llvm::formatv("lane {0}, which has exited", l).str();
    return llvm::formatv("lane {0}, which is waiting at another op", l).str();
  };
  for (unsigned l = 0; l < opts.warpSize; ++l) {
    if (!(present >> l & 1))
      continue;
    Thread &t = lane(l);
    switch (in.opc) {
    case Opc::Shfl: {
      uint32_t member = uint32_t(reg(l, in.a));
      if (!(member >> l & 1)) {
        setFault(in.op, llvm::formatv("shfl.sync by {0}: its membermask "
                                      "{1:x8} does not include itself",
                                      threadName(t), member));
        return false;
      }
      if (uint32_t missing = member & ~uint32_t(present)) {
        setFault(in.op, llvm::formatv("shfl.sync by {0} with membermask {1:x8} "
                                      "waits for {2}: the warp cannot converge "
                                      "here",
                                      threadName(t), member,
                                      describe(llvm::countr_zero(missing))));
        return false;
      }
      uint32_t b = uint32_t(reg(l, in.c)), c = uint32_t(reg(l, in.aux));
      uint32_t cval = c & 0x1f, segmask = (c >> 8) & 0x1f;
      uint32_t maxLane = (l & segmask) | (cval & ~segmask);
      uint32_t minLane = l & segmask;
      int j = l;
      bool pval = false;
      switch (in.sub) {
      case 0: // bfly
        j = int(l ^ (b & 0x1f));
        pval = uint32_t(j) <= maxLane;
        break;
      case 1: // up
        j = int(l) - int(b & 0x1f);
        pval = j >= int(maxLane);
        break;
      case 2: // down
        j = int(l + (b & 0x1f));
        pval = uint32_t(j) <= maxLane;
        break;
      default: // idx
        j = int(minLane | ((b & 0x1f) & ~segmask));
        pval = uint32_t(j) <= maxLane;
        break;
      }
      if (!pval)
        j = l;
      if (!(member >> j & 1)) {
        setFault(in.op, llvm::formatv("shfl.sync by {0} reads lane {1}, "
                                      "which is not in its membermask "
                                      "{2:x8} (undefined value)",
                                      threadName(t), j, member));
        return false;
      }
      out[l] = reg(j, in.b);
      break;
    }
    case Opc::Bpermute: {
      unsigned src = (uint32_t(reg(l, in.a)) >> 2) & (opts.warpSize - 1);
      out[l] = (present >> src & 1) ? reg(src, in.b) : 0;
      break;
    }
    case Opc::Swizzle: {
      unsigned src = swizzleSource(l, uint32_t(reg(l, in.b)));
      out[l] = src < opts.warpSize && (present >> src & 1) ? reg(src, in.a) : 0;
      break;
    }
    case Opc::ReadLane: {
      unsigned src = uint32_t(reg(l, in.b)) & (opts.warpSize - 1);
      out[l] = first + src < numThreads ? reg(src, in.a) : 0;
      break;
    }
    case Opc::ReadFirstLane:
      out[l] = reg(llvm::countr_zero(present), in.a);
      break;
    case Opc::Dpp: {
      const uint32_t *d = prog.aux.data() + in.aux;
      uint32_t ctrl = d[0], rowMask = d[1], bankMask = d[2];
      bool boundCtrl = d[3];
      int src = dppSource(l, ctrl, opts.warpSize);
      if (src == -2) {
        setFault(in.op, llvm::formatv("DPP control {0:x} is not "
                                      "implemented by the simulator",
                                      ctrl));
        return false;
      }
      bool enabled =
          (rowMask >> (l / 16) & 1) && (bankMask >> (l % 16 / 4) & 1);
      if (!enabled)
        out[l] = reg(l, in.a);
      else if (src >= 0 && (present >> src & 1))
        out[l] = reg(src, in.b);
      else
        out[l] = boundCtrl ? 0 : reg(l, in.a);
      break;
    }
    default:
      break;
    }
  }
  for (uint64_t mm = present; mm; mm &= mm - 1) {
    unsigned l = llvm::countr_zero(mm);
    for (unsigned k = 0; k < in.lanes; ++k)
      lane(l).regs[in.res + k] = out[l];
  }
  return true;
}
