//===- Tcgen05.cpp - Blackwell tensor memory and tcgen05.mma --------------===//
//
// PTX ISA, "TensorCore 5th Generation Family Instructions" (sm_100a), the
// forms kcc's lowering emits (backends/nvidia/Tcgen05ToNVVM.cpp):
//
//  - TMEM: 128 lanes x 512 columns of 32-bit cells per CTA. tcgen05.alloc
//    (by a whole warp; the simulator lets its lane 0 act) takes a power of
//    two in [32, 512] columns and writes the address (lane 0 in bits 16-31,
//    the first column in bits 0-15) to shared memory; after
//    relinquish_alloc_permit no allocation may follow; tcgen05.dealloc
//    frees it; everything must be freed before the CTA exits.
//  - tcgen05.mma.cta_group::1.kind::f16 [d], a-desc, b-desc, idesc, p:
//    issued by one thread; D (M x N f32 at address d: row r in lane r,
//    column j in column d + j) = A x B (+ D if p). The instruction
//    descriptor is decoded by its PTX bit layout (targets/TmemRules.h,
//    encodeTcgen05F16InstrDescriptor): dense, f32 D, f16/bf16 A and B,
//    K-/MN-major bits, N >> 3, M >> 4; the simulator models M = 128.
//    kind::i8 (encodeTcgen05I8InstrDescriptor): an s32 D and signed 8-bit A
//    and B, 32 K per instruction, exact wrapping integer sums.
//    kind::f8f6f4 (encodeTcgen05F8F6F4InstrDescriptor): an f32 D and 8-bit
//    float A and B, each e4m3 or e5m2 as its format field says, 32 K per
//    instruction, f32 sums in k order of the exact products. The
//    shared-memory descriptors are decoded by the target model
//    (decodeTcgen05Descriptor) and read through the canonical 128-byte
//    swizzled layouts, as Wgmma.cpp does for wgmma.
//  - tcgen05.commit...mbarrier::arrive::one: one arrival on the mbarrier
//    once every tcgen05.mma its thread issued before has completed.
//  - tcgen05.ld.sync.aligned.32x32b.x32: lane l of warp w reads TMEM lane
//    (address lane) + l, 32 columns from the address column; the address
//    lane must be 32 (w mod 4), the warp's quarter.
//
// The model: a tcgen05.mma runs when its thread's tcgen05.commit completes
// it (the earliest point the hardware may), reading shared memory as the
// async proxy ordered after what its issuer had seen when it issued it; the
// commit's arrival releases those reads, so a thread that waits on the
// mbarrier is ordered after them (a refill of their stage without that wait
// is a race report). A tcgen05.ld of columns written by an mma that the
// reading thread has not acquired that way is reported, as is one by a
// warp outside its lane quarter, TMEM used outside an allocation, an mma
// never committed and TMEM never freed. The tensor core's summation order
// and rounding are not modelled (f32 sums in k order).
//
//===----------------------------------------------------------------------===//
#include "sim/Float.h"
#include "sim/Machine.h"

#include "targets/TmemRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace kcc::sim;
using namespace kcc::sim::detail;

namespace {
constexpr unsigned kColumns = 512;
} // namespace

/// The allocation holding columns [col, col + n), if one does.
static bool allocated(const std::map<uint32_t, uint32_t> &allocs, uint32_t col,
                      uint32_t n) {
  auto it = allocs.upper_bound(col);
  if (it == allocs.begin())
    return false;
  --it;
  return col + n <= it->first + it->second;
}

/// Runs tcgen05.mma `index` (see the header); false after a fault.
static bool completeTcgen05(Machine &mc, uint32_t index) {
  Tcgen05Run &r = mc.tcMmas[index];
  if (r.done)
    return true;
  const AsyncCopy &c = mc.copies[r.copy];
  auto fail = [&](const llvm::Twine &why) {
    mc.setFault(r.op, "tcgen05.mma issued by " +
                          mc.threadName(mc.threads[r.issuer]) + ": " + why);
    return false;
  };
  uint32_t id = r.idesc;
  unsigned dFormat = (id >> 4) & 3, aFormat = (id >> 7) & 7,
           bFormat = (id >> 10) & 7;
  bool aMn = (id >> 15) & 1, bMn = (id >> 16) & 1;
  unsigned n = ((id >> 17) & 63) << 3, m = ((id >> 24) & 31) << 4;
  uint32_t modelled = (3u << 4) | (7u << 7) | (7u << 10) | (3u << 15) |
                      (63u << 17) | (31u << 24);
  // kind::f16: an f32 D, f16 or bf16 A and B of one type; kind::i8: an s32
  // D, signed 8-bit A and B; kind::f8f6f4: an f32 D, A and B each e4m3 (0)
  // or e5m2 (1); its 6- and 4-bit formats are not modelled.
  bool formsOk = r.i8   ? dFormat == 2 && aFormat == 1 && bFormat == 1
                 : r.f8 ? dFormat == 1 && aFormat <= 1 && bFormat <= 1
                        : dFormat == 1 && aFormat <= 1 && aFormat == bFormat;
  if (id & ~modelled || !formsOk)
    return fail(llvm::formatv(
        "the instruction descriptor {0:x8} is not a dense {1} (the forms the "
        "simulator models)",
        id,
        r.i8   ? "kind::i8 with an s32 D and signed 8-bit A and B"
        : r.f8 ? "kind::f8f6f4 with an f32 D and e4m3 or e5m2 A and B"
               : "kind::f16 with an f32 D and f16 or bf16 A and B of one "
                 "type"));
  if (m != 128)
    return fail(llvm::formatv("M = {0}: the simulator models M = 128 (row r "
                              "of D in TMEM lane r)",
                              m));
  // One instruction covers 32 bytes of K.
  unsigned eb = r.i8 || r.f8 ? 1 : 2, kStep = 32 / eb;
  kcc::Tcgen05Kind kind = r.i8   ? kcc::Tcgen05Kind::I8
                          : r.f8 ? kcc::Tcgen05Kind::F8F6F4
                                 : kcc::Tcgen05Kind::F16;
  if (llvm::Error e = kcc::checkTcgen05MmaShape(kind, m, n, kStep))
    return fail(llvm::toString(std::move(e)));
  uint32_t lane0 = r.d >> 16, col0 = r.d & 0xffff;
  if (lane0 != 0 || !allocated(mc.tmemAllocs, col0, n))
    return fail(llvm::formatv("D at TMEM lane {0}, columns {1}..{2} is not "
                              "inside an allocation starting at lane 0",
                              lane0, col0, col0 + n - 1));
  kcc::Tcgen05DescriptorFields fa, fb;
  for (auto [desc, fields, name] :
       {std::tuple(r.descA, &fa, "A"), std::tuple(r.descB, &fb, "B")}) {
    llvm::Expected<kcc::Tcgen05DescriptorFields> f =
        kcc::decodeTcgen05Descriptor(desc);
    if (!f)
      return fail(llvm::formatv("the {0} descriptor {1:x16} is invalid: {2}",
                                name, desc, llvm::toString(f.takeError())));
    if (f->swizzle != kcc::Tcgen05Swizzle::B128 || f->baseOffset != 0 ||
        f->lboMode != kcc::Tcgen05LboMode::Relative)
      return fail(llvm::formatv("the {0} descriptor {1:x16} is not the "
                                "128-byte swizzle with base offset 0 and a "
                                "relative LBO, the layout the simulator "
                                "models",
                                name, desc));
    *fields = *f;
  }
  bool bf16 = aFormat == 1;
  // Element (mn, k) of a kStep-wide K slice through the canonical layout
  // (8-bit integers and floats exactly).
  auto read = [&](const kcc::Tcgen05DescriptorFields &f, bool mnMajor,
                  unsigned mn, unsigned k, const char *name,
                  float &out) -> bool {
    uint64_t addr =
        swizzledOperandOffset(f.startAddress, f.leadingByteOffset,
                              f.strideByteOffset, mnMajor, mn, k, eb);
    if (addr + eb > mc.prog.sharedBytes)
      return fail(llvm::formatv("{0}'s element ({1}, k {2}) is at shared "
                                "offset {3}, beyond the kernel's {4} bytes",
                                name, mn, k, addr, mc.prog.sharedBytes));
    if (!mc.sharedAccess(nullptr, r.op, addr, eb, /*store=*/false, c.syncId))
      return false;
    if (r.i8) {
      out = float(int8_t(mc.shared[addr]));
      return true;
    }
    if (r.f8) { // exact in f32, as are the products of two
      bool e5 = (*name == 'A' ? aFormat : bFormat) == 1;
      out = float(float8ToDouble(mc.shared[addr], e5 ? F8::E5M2 : F8::E4M3));
      return true;
    }
    uint16_t h;
    std::memcpy(&h, mc.shared.data() + addr, 2);
    out = bf16 ? bf16ToFloat(h) : halfToFloat(h);
    return true;
  };
  std::vector<float> a(size_t(m) * kStep), b(size_t(n) * kStep);
  for (unsigned i = 0; i < m; ++i)
    for (unsigned k = 0; k < kStep; ++k)
      if (!read(fa, aMn, i, k, "A", a[i * kStep + k]))
        return false;
  for (unsigned j = 0; j < n; ++j)
    for (unsigned k = 0; k < kStep; ++k)
      if (!read(fb, bMn, j, k, "B", b[k * n + j]))
        return false;
  for (unsigned i = 0; i < m; ++i)
    for (unsigned j = 0; j < n; ++j) {
      uint32_t &cell = mc.tmem[size_t(i) * kColumns + col0 + j];
      if (r.i8) {
        // s32 sums, wrapping as the hardware's do.
        uint32_t d = r.accumulate ? cell : 0;
        for (unsigned k = 0; k < kStep; ++k)
          d += uint32_t(int32_t(a[i * kStep + k]) * int32_t(b[k * n + j]));
        cell = d;
        continue;
      }
      float d = r.accumulate ? asF32(cell) : 0.f;
      for (unsigned k = 0; k < kStep; ++k)
        d += a[i * kStep + k] * b[k * n + j];
      cell = uint32_t(bitsOf(d));
    }
  r.done = true;
  mc.copies[r.copy].done = true;
  return true;
}

Machine::Step Machine::tcgen05Op(Thread &t, const Inst &in) {
  if (tmem.empty()) // 256 KiB: only for CTAs that use it
    tmem.assign(128 * 512, 0);
  RegPtr R = t.regs;
  auto fail = [&](const llvm::Twine &why) {
    setFault(in.op, threadName(t) + ": " + why);
    return Step::Fault;
  };
  switch (in.opc) {
  case Opc::TmemAlloc: {
    if (t.lane != 0) // one allocation per warp (.sync.aligned)
      return Step::Continue;
    uint32_t cols = in.c;
    if (llvm::Error e = kcc::checkTmemAlloc(cols))
      return fail("tcgen05.alloc: " + llvm::toString(std::move(e)));
    if (tmemRelinquished)
      return fail("tcgen05.alloc after tcgen05.relinquish_alloc_permit: the "
                  "CTA gave up its permit to allocate");
    uint32_t start = kColumns;
    for (uint32_t s = 0; s + cols <= kColumns && start == kColumns; s += cols) {
      auto it = tmemAllocs.lower_bound(s);
      bool clashNext = it != tmemAllocs.end() && it->first < s + cols;
      bool clashPrev = it != tmemAllocs.begin() &&
                       std::prev(it)->first + std::prev(it)->second > s;
      if (!clashNext && !clashPrev)
        start = s;
    }
    if (start == kColumns)
      return fail(llvm::formatv("tcgen05.alloc of {0} columns: TMEM has no "
                                "free aligned range left (a GPU would block "
                                "this warp until another allocation is "
                                "freed)",
                                cols));
    tmemAllocs[start] = cols;
    if (in.sub)
      tmemRelinquished = true;
    uint64_t slot = uint32_t(R[in.a]);
    if (slot % 4 || slot + 4 > prog.sharedBytes)
      return fail(llvm::formatv("tcgen05.alloc writes the address to shared "
                                "offset {0}, which is {1}",
                                slot,
                                slot % 4
                                    ? "not 4-byte aligned"
                                    : "beyond the kernel's shared memory"));
    if (!sharedAccess(&t, in.op, slot, 4, /*store=*/true))
      return Step::Fault;
    std::memcpy(shared.data() + slot, &start, 4);
    return Step::Continue;
  }
  case Opc::TmemDealloc: {
    if (t.lane != 0)
      return Step::Continue;
    uint32_t addr = uint32_t(R[in.a]), col = addr & 0xffff;
    auto it = tmemAllocs.find(col);
    if (addr >> 16 || it == tmemAllocs.end() || it->second != in.c)
      return fail(llvm::formatv("tcgen05.dealloc of {0} columns at TMEM "
                                "address {1:x}: no allocation of that size "
                                "starts there",
                                in.c, addr));
    for (const Tcgen05Run &r : tcMmas)
      if (!r.done && (r.d & 0xffff) >= col && (r.d & 0xffff) < col + in.c)
        return fail("tcgen05.dealloc while a tcgen05.mma writing the "
                    "allocation was never committed");
    tmemAllocs.erase(it);
    return Step::Continue;
  }
  case Opc::Tcgen05Mma: {
    Tcgen05Run r;
    r.op = in.op, r.issuer = t.tid;
    r.d = uint32_t(R[in.a]);
    r.descA = R[in.b], r.descB = R[in.c];
    r.idesc = uint32_t(R[prog.aux[in.aux]]);
    r.accumulate = uint32_t(R[prog.aux[in.aux + 1]]) != 0;
    r.i8 = in.sub == 1, r.f8 = in.sub == 2;
    // Its reads are ordered after what the thread had seen at issue; the
    // thread's own later accesses are not ordered before them.
    newAsyncSyncId();
    AsyncCopy c;
    c.tcgen05 = true;
    c.load = false;
    c.op = in.op;
    c.issuer = t.tid;
    c.syncId = idBase + numThreads + copies.size();
    c.seen = t.acquired;
    joinInto(c.seen, Clock{{t.sid, t.clock}});
    ++t.clock;
    c.seenGen = t.gen;
    r.copy = copies.size();
    joinInto(t.tcIssued, Clock{{c.syncId, 1}});
    copies.push_back(std::move(c));
    t.tcOpen.push_back(tcMmas.size());
    tcMmas.push_back(r);
    return Step::Continue;
  }
  case Opc::Tcgen05Commit: {
    uint64_t addr = uint32_t(R[in.a]);
    if (addr % 8 || addr + 8 > prog.sharedBytes)
      return fail(llvm::formatv("tcgen05.commit to shared offset {0}, which "
                                "is not an mbarrier's place",
                                addr));
    MBarrier *m = findMBarrier(t, in.op, addr);
    if (!m)
      return Step::Fault;
    if (m->pending < 1)
      return fail("tcgen05.commit arrives on " + describeMBarrier(addr) +
                  ": more arrivals than the init count allows");
    std::vector<uint32_t> open = std::move(t.tcOpen);
    t.tcOpen.clear();
    for (uint32_t i : open)
      if (!completeTcgen05(*this, i))
        return Step::Fault;
    m = &mbarriers[addr];
    joinInto(m->releasing, t.acquired);
    joinInto(m->releasing, Clock{{t.sid, t.clock}});
    ++t.clock;
    joinInto(m->releasing, t.tcIssued);
    m->pending -= 1;
    maybeCompletePhase(*this, addr);
    return Step::Continue;
  }
  case Opc::TmemLd: {
    uint32_t addr = uint32_t(R[in.a]), lane0 = addr >> 16, col = addr & 0xffff;
    if (lane0 != 32 * (t.warp % 4))
      return fail(llvm::formatv("tcgen05.ld.32x32b at TMEM lane {0}: warp {1} "
                                "may only access lanes {2}-{3} (its quarter "
                                "of its warpgroup)",
                                lane0, t.warp, 32 * (t.warp % 4),
                                32 * (t.warp % 4) + 31));
    if (!allocated(tmemAllocs, col, 32))
      return fail(llvm::formatv("tcgen05.ld of TMEM columns {0}..{1}, which "
                                "no allocation holds",
                                col, col + 31));
    for (const Tcgen05Run &r : tcMmas) {
      uint32_t d = r.d & 0xffff, n = ((r.idesc >> 17) & 63) << 3;
      if (d >= col + 32 || col >= d + n)
        continue;
      if (!r.done || clockOf(t.acquired, copies[r.copy].syncId) == 0) {
        setFault(in.op,
                 threadName(t) +
                     ": tcgen05.ld of TMEM columns a tcgen05.mma writes, "
                     "without waiting on the mbarrier of a tcgen05.commit "
                     "that completes it (the columns are undefined until "
                     "then)");
        fault->notes.push_back({Report::Note, "the tcgen05.mma", locOf(r.op)});
        return Step::Fault;
      }
    }
    size_t row = size_t(lane0 + t.lane) * kColumns;
    for (unsigned i = 0; i < 32; ++i)
      R[in.res + i] = tmem[row + col + i];
    return Step::Continue;
  }
  default:
    break;
  }
  return fail("internal error: not a tcgen05 instruction");
}

bool Machine::checkTcgen05Exit() {
  for (const Tcgen05Run &r : tcMmas)
    if (!r.done) {
      setFault(r.op, "the tcgen05.mma issued by " +
                         threadName(threads[r.issuer]) +
                         " was never committed (tcgen05.commit) before the "
                         "threads exited");
      return false;
    }
  if (!tmemAllocs.empty()) {
    auto [col, n] = *tmemAllocs.begin();
    setFault(prog.code.back().op,
             llvm::formatv("the CTA exits with {0} TMEM columns from column "
                           "{1} still allocated: tcgen05.dealloc must free "
                           "every allocation first",
                           n, col));
    return false;
  }
  return true;
}
