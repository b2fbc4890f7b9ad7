//===- Program.h - an llvm.func decoded for the SIMT simulator ----*- C++
//-*-===//
//
// The simulator does not walk MLIR operations while it runs: walking the IR
// and looking values up in maps for every executed op of every thread would
// be far too slow for CI. decodeFunction() translates one kernel (an
// llvm.func after kcc's lowering: LLVM dialect plus NVVM or ROCDL ops) once
// into a flat array of instructions over numbered register slots:
//  - every SSA value gets `lanes` consecutive 64-bit slots (one for a scalar,
//    N for a vector<N x T>); an element holds its bit pattern zero-extended
//    (f32 as its 32 bits, f16/bf16 as 16 bits, i1 as 0/1, pointers as 64-bit
//    addresses in the simulator's address map, see Memory.h);
//  - constants, poison and shared-memory addresses are not instructions:
//    they are written into a template of the register file once, and SSA
//    guarantees nothing overwrites them;
//  - block arguments are slots that branches fill with parallel copies.
// Any op or type the simulator does not implement is a located error here,
// before anything runs, never a silent skip.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_SIM_PROGRAM_H
#define KCC_SIM_PROGRAM_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Location.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kcc::sim {

/// Element kinds of register values.
enum class EK : uint8_t { Int, F16, BF16, F32, F64, Ptr };

/// What an AtomicRMW instruction does (Inst::sub).
enum class AtomicOp : uint8_t {
  Add,
  FAdd,
  SMin,
  SMax,
  FMinimum,
  FMaximum,
  Xchg
};

enum class Opc : uint16_t {
  // Integer and float arithmetic (sub: predicate for compares).
  Add,
  Sub,
  Mul,
  UDiv,
  SDiv,
  URem,
  SRem,
  And,
  Or,
  Xor,
  Shl,
  LShr,
  AShr,
  FAdd,
  FSub,
  FMul,
  FDiv,
  FRem,
  FNeg,
  ICmp,
  FCmp,
  Select,
  // Casts: c holds the source bit width / kind where needed.
  SExt,
  ZExt,
  Trunc,
  FPExt,
  FPTrunc,
  // nvvm.convert.f32x2.to.f8x2 (a, b the f32 inputs; sub: F8; the result's
  // element 0 is b's byte) and nvvm.convert.f8x2.to.f16x2 (a the bytes).
  CvtF32x2ToF8x2,
  CvtF8x2ToF16x2,
  CvtPkF32ToFnuz, // v_cvt_pk_{fp8,bf8}_f32: sub the format, c the old word
  CvtFnuzToF32,   // v_cvt_f32_{fp8,bf8}: sub the format, aux the byte
  SIToFP,
  UIToFP,
  FPToSI,
  FPToUI,
  Bitcast,
  Copy,
  PtrToInt,
  IntToPtr,
  AddrSpaceCast,
  // Vectors.
  ExtractElement,
  InsertElement,
  ShuffleVector,
  // Memory.
  GEP,
  Load,
  Store,
  AtomicRMW, // a address, b value; sub: AtomicOp; result the old value
  CmpXchg,   // a address, b expected, c new; results: old value, success
  // Math intrinsics (unary a, binary a b, ternary a b c).
  FMax,
  FMin,
  FMaxNum,
  FMinNum,
  SMax,
  SMin,
  UMax,
  UMin,
  FAbs,
  Fma,
  Sqrt,
  Exp,
  Exp2,
  Log,
  Log2,
  Floor,
  Ceil,
  FTrunc,
  Round,
  CopySign,
  CtPop,
  Abs,
  Rsqrt,
  Rcp,
  // Thread / block / grid ids (sub: axis).
  ThreadId,
  BlockId,
  BlockDim,
  GridDim,
  LaneId,
  WarpSize,
  DispatchPtr,
  // Clusters (Cluster.cpp). ClusterReg: sub = kind << 2 | axis, kind 0
  // cluster.ctaid, 1 cluster.nctaid, 2 clusterid, 3 nclusterid, 4
  // cluster.ctarank, 5 cluster.nctarank. Mapa: a the shared::cta (or
  // generic) address, b the rank.
  ClusterReg,
  Mapa,
  // Control flow.
  Br,
  CondBr,
  Switch,
  Return,
  Unreachable,
  // Synchronisation and cross-lane ops: the thread blocks here.
  Barrier,  // a: id slot or ~0u (barrier 0), b: count slot or ~0u;
            // sub 1: arrive without waiting (bar.arrive)
  Shfl,     // a membermask, b value, c offset, aux: clamp slot; sub: mode
  Bpermute, // a byte index, b value
  Swizzle,  // a value, sub/aux: pattern
  ReadLane, // a value, b lane
  ReadFirstLane,
  Dpp, // a old, b src; aux: ctrl, rowMask, bankMask, boundCtrl
  MbcntLo,
  MbcntHi,
  // barrier.cluster (Cluster.cpp): sub 0 arrive, 1 arrive.relaxed, 2 wait.
  ClusterBarrier,
  // Warp-wide matrix ops (WarpMma.cpp), collectives of the whole warp.
  // LdMatrix: a the shared address, res `lanes` i32 slots, sub 1 = .trans.
  // MmaSync (m16n8k16, f32 accumulator): res 4 f32 slots, aux a MmaSyncAux
  // record.
  LdMatrix,
  MmaSync,
  // v_mfma_f32_16x16x16{f16,bf16_1k}: a, b the 4-lane operand slots, c the
  // 4 accumulator slots; sub 1 = bf16.
  Mfma,
  // mbarriers and bulk async copies (Async.cpp). TmaLoad: a the
  // destination, b the tensor map, c the mbarrier, aux: [n, n coordinate
  // slots, the multicast mask's slot or ~0u].
  MBarInit,
  MBarArrive,
  MBarArriveExpectTx,
  MBarExpectTx,
  MBarCompleteTx,
  MBarTryWaitParity,
  MBarInval,
  TmaLoad,
  TmaStore,
  BulkCommit,
  BulkWait,
  FenceProxyAsync,
  // cp.async (non-bulk, Async.cpp): a = shared dst slot, b = global src
  // slot, c = src-size slot (kNone: all of it), sub = cp-size. The group
  // ops: CpAsyncWait's a = the number of groups left pending.
  CpAsync,
  CpAsyncCommit,
  CpAsyncWait,
  // Warpgroup MMA (Wgmma.cpp). Wgmma: res the N/2 result slots, a / b the
  // descriptor slots, c the scale-d slot (kNone: sub holds it), aux a
  // WgmmaAux record. WgmmaWait: a = the number of groups left pending.
  Wgmma,
  WgmmaCommit,
  WgmmaWait,
  // Blackwell tensor memory and tcgen05 (Tcgen05.cpp). TmemAlloc: a = the
  // shared slot (i32 offset) the address goes to, c = columns, sub = 1 when
  // it also relinquishes the allocation permit. TmemDealloc: a = the TMEM
  // address, c = columns. Tcgen05Mma (kind::f16, cta_group::1): a = the D
  // address, b / c = the A / B descriptors, aux: [idesc slot, enable-input-d
  // slot]. Tcgen05Commit: a = the mbarrier (i32 shared offset).
  // TmemLd (32x32b.x32): res the 32 result slots, a = the address.
  TmemAlloc,
  TmemDealloc,
  Tcgen05Mma,
  Tcgen05Commit,
  TmemLd,
  Nop,
};

/// Inst::flags.
enum : uint8_t {
  /// The op reads a value that may hold a wgmma accumulator not yet retired
  /// by wgmma.wait_group (Program::accReads has the slots to check).
  kReadsWgmmaAcc = 1,
};

/// Program::aux record of a Wgmma instruction.
/// The 8-bit floats (PTX .e4m3 / .e5m2: OCP E4M3FN and E5M2); the `sub`
/// of the fp8 conversions.
/// E4M3FNUZ / E5M2FNUZ: MI300's (gfx942) fp8 and bf8 (bias 8 / 16, no
/// infinities, no -0, NaN 0x80).
enum class F8 : uint8_t { E4M3, E5M2, E4M3FNUZ, E5M2FNUZ };

struct WgmmaAux {
  enum : uint32_t {
    BF16 = 1,    // .bf16 multiplicands (else .f16)
    TransA = 2,  // imm-trans-a: A is M-major
    TransB = 4,  // imm-trans-b: B is N-major
    NegA = 8,    // imm-scale-a = -1
    NegB = 16,   // imm-scale-b = -1
    RegA = 32,   // A in registers (Inst::a unused)
    S8 = 64,     // .s8 multiplicands, K = 32, .s32 accumulator
    F8A = 128,   // A is .e4m3 or .e5m2 (K = 32)
    F8B = 256,   // B is .e4m3 or .e5m2
    E5M2A = 512, // with F8A: A is .e5m2 (else .e4m3)
    E5M2B = 1024,
  };
  // aux[0] = N, aux[1] = flags, then per D register i (i < N / 2) its
  // result field and the slot of its accumulator input; with RegA, then the
  // slots of the 4 A registers (f16x2 / bf16x2 in 32 bits).
};

/// One decoded instruction. Operand fields are register slots unless the
/// opcode says otherwise; variable-length data lives in Program::aux.
struct Inst {
  Opc opc;
  EK ek = EK::Int;  // element kind of the result (or of the operand)
  uint8_t sub = 0;  // predicate, axis, mode
  uint8_t bits = 0; // element bit width of the result / operated type
  uint8_t addrSpace = 0;
  uint16_t lanes = 1; // vector width
  uint32_t res = 0, a = 0, b = 0, c = 0;
  uint32_t aux = 0; // index into Program::aux
  uint32_t op = 0;  // index into Program::ops (location, statistics)
  uint8_t srcBits = 0;
  EK srcEk = EK::Int;
  uint8_t srcAddrSpace = 0;
  uint8_t flags = 0; // kReadsWgmmaAcc
};

/// A shared-memory global (llvm.mlir.global addr_space 3).
struct SharedGlobal {
  std::string name;
  uint64_t offset = 0, size = 0;
};

struct Program {
  std::vector<Inst> code;
  std::vector<uint32_t> aux;
  std::vector<mlir::Operation *> ops;
  /// Register file template: slots [0, numConstSlots) hold constants.
  std::vector<uint64_t> constants;
  uint32_t numSlots = 0;
  /// Slot and lanes of each kernel argument.
  std::vector<uint32_t> argSlots;
  std::vector<mlir::Type> argTypes;
  uint32_t entry = 0;
  std::vector<SharedGlobal> shared;
  uint64_t sharedBytes = 0;
  /// Shared-memory access ops, numbered for per-op statistics.
  uint32_t numSharedAccessOps = 0;
  /// Warpgroup MMA: whether the kernel has any, and, per instruction flagged
  /// kReadsWgmmaAcc (by pc), the operands that may hold a wgmma result, as
  /// (slot, lanes).
  bool hasWgmma = false;
  /// An atomic on memory other than shared (generic pointers included):
  /// CTAs may then see each other's work, so they run one after another.
  bool globalAtomics = false;
  using AccRead =
      std::pair<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>>;
  std::vector<AccRead> accReads;
};

/// A decode error: the message and the op it is about.
struct DecodeError {
  std::string message;
  mlir::Location loc;
};

/// Decodes `func`. Fails on the first op, type or attribute the simulator
/// does not implement.
bool decodeFunction(mlir::LLVM::LLVMFuncOp func, Program &program,
                    DecodeError &error);

} // namespace kcc::sim

#endif // KCC_SIM_PROGRAM_H
