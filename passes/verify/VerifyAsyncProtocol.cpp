//===- VerifyAsyncProtocol.cpp - typestate verifier for async IR ----------===//
//
// kcc-verify-async-protocol proves, before code emission, that the explicit
// async protocol of every function using the ops of ir/KccAsyncOps.td is
// well formed (the state machines are in the header of that file).
//
// Method: concrete abstract interpretation. The whole CTA executes the ops in
// program order, so the verifier executes the function once per choice of its
// run-time integers: integer scalars (arith on i1/i32/i64/index) are evaluated
// exactly, scf.for runs every iteration, scf.if takes the branch its condition
// selects, and every mbarrier / shared-memory stage / bulk async-group carries
// a typestate that each op checks and advances.
//  * Integer kernel arguments that reach a loop bound, an scf.if condition or
//    a barrier/stage index or parity ("control arguments") are unknown at
//    compile time: the function is executed for representative values (0 ..
//    2*S+2 and a large value, S = the deepest buffer; multiples of
//    kcc.divisibility and of constant divisors applied to them). The first
//    failing choice is named in the diagnostic ("with n = 1"), unless every
//    choice fails. More than 4096 combinations: each argument is varied alone
//    with the others at the large value. Choices the execution cannot tell
//    apart run once: it sees the arguments only through the integers that
//    arith ops compute from them alone, where something else uses them
//    (typically the trip count K/BK, not K), so choices giving those the
//    same values execute identically (a choice for which one of them is not
//    a known constant is never merged).
//  * Other integers (program ids, loaded values, other arguments) are linear
//    symbolic forms, enough to compare TMA coordinates such as pid*32 and
//    pid*32 + 32. A stage index, barrier index, parity, loop bound or branch
//    condition that is not a known constant is an error ("cannot prove"),
//    never a silent accept; so is a region op other than scf.for/scf.if that
//    contains async ops. The exception: an scf.if around async ops whose
//    condition is computed from loaded values (a group's end read from an
//    offsets array) is run both ways, like kcc.data_dependent branches (at
//    most kMaxDataBranches per kernel).
//  * Execution is capped at kMaxSteps executed operations per choice (a
//    "cannot prove" error at the loop that exceeds it).
//  * A persistent kernel's tile loop (kcc.persistent_tiles, from the launch
//    id by the launch's extent) runs as in program 0 of a one-program
//    launch, which runs every tile, but at most 2*S+2 of them: what one
//    tile passes to the next is the stage counters of its pipelines (each
//    advancing by the same trip count every tile) and the barriers' phases
//    and stages, which repeat with period 2*S, so 2*S+1 tiles reach every
//    counter a longer run reaches, and the last one's drain is checked at
//    the kernel's end.
//  * kcc.warp_specialize: its producer and consumer regions run as two
//    concurrent roles (continuations: each role's position is an explicit
//    stack of frames, which the role scheduler suspends at a blocking wait
//    and resumes later; exactly one role runs at a time, on the pass's
//    thread) that share the typestate and meet only through mbarriers. A
//    wait whose phase cannot complete yet (missing arrivals, or tx bytes
//    still expected) blocks its role and the other one runs; a blocked
//    role resumes as soon as an op of the other role makes its wait
//    completable (wake-up preemption: the released role runs at once, the
//    adversarial order for "released too early" bugs). Both roles blocked,
//    or one blocked after the other finished, is a deadlock. Each choice
//    runs twice: producer first and consumer first.
//    What this does NOT prove: only these two schedules are explored, not
//    every interleaving, so a deadlock, a parity or byte-count mismatch or
//    an overwrite caught by an instantaneous check (a wgmma group or
//    tma_store still reading the stage) that only another interleaving
//    reaches is missed. Whether a write follows the release of the other
//    role's reads is decided from what each role has observed through its
//    waits (below), which holds in every interleaving.
//
// Rules checked (messages say what to add or change):
//  * mbarrier: use before init, use after inval, init twice, use before
//    fence_mbarrier_init, index out of range; a wait needs an armed phase
//    (else hang), the parity of the pending phase (else it returns at once),
//    all `count` arrivals and tx bytes expected == bytes of the copies that
//    signal the barrier in that phase; an arrival beyond `count`; inval with
//    copies in flight.
//  * stages: reads (smem_load, tma_store) need a completed (waited) load or
//    a cta_barrier after generic writes; writes (tma_load, smem_store) need
//    the stage released: no copy in flight, loaded data read, a cta_barrier
//    after the last smem_load and no un-waited tma_store reading it.
//  * proxies: smem_store -> fence_proxy_async -> cta_barrier -> tma_store.
//  * cp.async groups (kcc.cp_async, kcc-pipeline-async-copies): every thread
//    copies its own chunks, so a stage filled by cp.async may be read only
//    after a kcc.cp_async_wait_group retired the copy's group (each thread's
//    own chunks landed) and a kcc.cta_barrier followed (everyone's did); it
//    may be overwritten only once no copy into it is in flight and a
//    kcc.cta_barrier followed its last read (smem_load, warp_mma); the
//    kernel must not end with a copy that was never waited for. The
//    producer role issues none of them.
//  * bulk async-groups: overlapping tma_stores to one map in one group, a
//    tma_load of a box an un-completed tma_store writes, and a kernel ending
//    with uncommitted or un-waited tma_stores or with loads in flight (the
//    "trip count smaller than the pipeline depth" bug).
//  * roles: a read (smem_load, warpgroup_mma, tma_store) of a loaded stage
//    needs a wait observed in its own role (or before the split). A role
//    may overwrite a stage the other role read only after one of its waits
//    observed an arrival that covers the read: the consumer arrives from
//    one thread, so its smem_loads need a kcc.cta_barrier before the
//    arrival, and its wgmma groups must have retired before it, seen by
//    each warpgroup's leader (per_warpgroup, which counts
//    consumer_warpgroups arrivals, or a plain arrival with one warpgroup).
//    The producer is one thread: no kcc.cta_barrier, generic-proxy or
//    wgmma ops, bulk groups or proxy fences there; barriers are initialized
//    before the split, and the split is neither nested nor in a loop.
//
// The parts (passes/verify/async/): Typestate.h (the values), Interpreter.h
// (structured control flow, scalars, the step cap), RoleScheduler.h (the
// roles of kcc.warp_specialize), Rules.h and one file of transfer rules per
// protocol. This file is the driver: it picks the argument choices, runs the
// interpreter for each and reports the first failure.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/analysis/ClusterUniform.h"
#include "passes/verify/async/Interpreter.h"
#include "passes/verify/async/Rules.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <string>

namespace kcc {
#define GEN_PASS_DEF_KCCVERIFYASYNCPROTOCOL
#include "passes/Passes.h.inc"
} // namespace kcc

using namespace mlir;
using namespace kcc::verify;

namespace {

constexpr size_t kMaxCombinations = 4096;
/// Data-dependent branches explored per function (2^N runs per choice).
constexpr size_t kMaxDataBranches = 6;

//===----------------------------------------------------------------------===//
// Argument choices
//===----------------------------------------------------------------------===//

/// The identity of a program id or program count: every op of one axis
/// reads the same value, wherever a role recomputed it.
std::optional<std::pair<bool, uint32_t>> programIndex(Value v) {
  if (auto pid = v.getDefiningOp<kcc::ProgramIdOp>())
    return std::make_pair(false, uint32_t(pid.getAxis()));
  if (auto n = v.getDefiningOp<kcc::NumProgramsOp>())
    return std::make_pair(true, uint32_t(n.getAxis()));
  return std::nullopt;
}

/// Integer function arguments that reach a control use: loop bounds, scf.if
/// conditions, and the barrier index / stage index / parity of async ops.
/// `aliases` maps the other program ids of an axis whose id is chosen to
/// the chosen one (the producer's copy of the consumer's, say).
llvm::SetVector<Value> controlArguments(func::FuncOp func,
                                        llvm::SmallVector<int64_t> &divisors,
                                        llvm::DenseMap<Value, Value> &aliases) {
  llvm::SmallVector<Value> work;
  func.walk([&](Operation *op) {
    if (auto f = dyn_cast<scf::ForOp>(op))
      work.append({f.getLowerBound(), f.getUpperBound(), f.getStep()});
    else if (auto i = dyn_cast<scf::IfOp>(op))
      work.push_back(i.getCondition());
    else if (auto w = dyn_cast<kcc::MBarrierWaitOp>(op))
      work.append({w.getIndex(), w.getParity()});
    else if (auto l = dyn_cast<kcc::TmaLoadOp>(op))
      work.append({l.getStage(), l.getIndex()});
    else if (auto s = dyn_cast<kcc::TmaStoreOp>(op))
      work.push_back(s.getStage());
    else if (auto s = dyn_cast<kcc::SmemLoadOp>(op))
      work.push_back(s.getStage());
    else if (auto m = dyn_cast<kcc::WarpgroupMmaOp>(op))
      work.append({m.getAStage(), m.getBStage()});
    else if (auto m = dyn_cast<kcc::WarpgroupMmaRegAOp>(op))
      work.push_back(m.getBStage());
    else if (auto m = dyn_cast<kcc::WarpMmaOp>(op))
      work.append({m.getAStage(), m.getBStage()});
    else if (auto c = dyn_cast<kcc::CpAsyncOp>(op))
      work.push_back(c.getStage());
    else if (auto c = dyn_cast<kcc::CpAsyncGatherOp>(op))
      work.push_back(c.getStage());
    else if (auto s = dyn_cast<kcc::SmemStoreOp>(op))
      work.push_back(s.getStage());
    else if (isa<kcc::MBarrierInitOp, kcc::MBarrierArriveOp,
                 kcc::MBarrierArriveExpectTxOp, kcc::MBarrierInvalOp>(op))
      work.push_back(op->getOperand(1));
  });
  llvm::DenseSet<Value> seen;
  llvm::SetVector<Value> args;
  llvm::DenseSet<Value> boundIds;
  func.walk([&](Operation *op) {
    llvm::SmallVector<Value> slice;
    // A persistent tile loop runs as in program 0 of a one-program launch
    // (Interpreter.cpp).
    if (auto f = dyn_cast<scf::ForOp>(op);
        f && !f->hasAttr(kcc::KccDialect::kPersistentTilesAttr))
      slice = {f.getLowerBound(), f.getUpperBound()};
    else if (auto i = dyn_cast<scf::IfOp>(op);
             i && !i->hasAttr(kcc::KccDialect::kDataDependentAttr) &&
             containsAsyncOp(i))
      slice = {i.getCondition()};
    llvm::DenseSet<Value> visited;
    while (!slice.empty()) {
      Value v = slice.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !visited.insert(v).second)
        continue;
      if (isa<kcc::ProgramIdOp, kcc::NumProgramsOp>(def))
        boundIds.insert(v);
      else if (isa_and_nonnull<arith::ArithDialect>(def->getDialect()))
        slice.append(def->getOperands().begin(), def->getOperands().end());
    }
  });
  std::map<std::pair<bool, uint32_t>, Value> chosenIds;
  llvm::DenseMap<Location, Value> chosenLoads;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (owner == func.getOperation()) {
        if (scalarWidth(arg.getType()))
          args.insert(arg);
      } else if (auto f = dyn_cast<scf::ForOp>(owner)) {
        if (arg == f.getInductionVar()) {
          work.append({f.getLowerBound(), f.getStep()});
        } else {
          unsigned i = arg.getArgNumber() - 1;
          work.push_back(f.getInitArgs()[i]);
          work.push_back(f.getBody()->getTerminator()->getOperand(i));
        }
      }
      continue;
    }
    Operation *def = v.getDefiningOp();
    // Program ids that reach a loop bound or the condition of a branch
    // around async ops are chosen like arguments (a causal attention loop
    // ends at its block's diagonal; a program takes one of two parts of a
    // concatenation; data-dependent branches run both ways anyway);
    // elsewhere they stay symbolic (TMA coordinates compare as linear
    // forms).
    if (isa<kcc::ProgramIdOp, kcc::NumProgramsOp>(def)) {
      if (boundIds.contains(v))
        chosenIds.try_emplace(*programIndex(v), v);
      continue;
    }
    // An integer scalar read from memory (a sequence's length bounding a
    // loop of gathered copies, kcc-pipeline-async-copies) is chosen like
    // an argument: the protocol must hold for whatever the memory holds.
    // The roles' copies of one load (same location) read the same memory:
    // one choice, the others its aliases.
    if (auto load = dyn_cast<kcc::LoadOp>(def)) {
      if (scalarWidth(v.getType())) {
        auto [it, fresh] = chosenLoads.try_emplace(load.getLoc(), v);
        if (fresh)
          args.insert(v);
        else if (it->second != v)
          aliases[v] = it->second;
      }
      continue;
    }
    if (auto f = dyn_cast<scf::ForOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      work.push_back(f.getInitArgs()[i]);
      work.push_back(f.getBody()->getTerminator()->getOperand(i));
      continue;
    }
    if (auto i = dyn_cast<scf::IfOp>(def)) {
      unsigned n = cast<OpResult>(v).getResultNumber();
      work.push_back(i.getCondition());
      for (Region *r : {&i.getThenRegion(), &i.getElseRegion()})
        if (!r->empty())
          work.push_back(r->front().getTerminator()->getOperand(n));
      continue;
    }
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
            arith::CeilDivUIOp, arith::FloorDivSIOp>(def))
      if (auto c = def->getOperand(1).getDefiningOp<arith::ConstantOp>())
        if (auto ia = dyn_cast<IntegerAttr>(c.getValue()))
          if (ia.getInt() > 1 && !llvm::is_contained(divisors, ia.getInt()))
            divisors.push_back(ia.getInt());
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  for (auto &[index, chosen] : chosenIds)
    args.insert(chosen);
  func.walk([&](Operation *op) {
    if (op->getNumResults() != 1)
      return;
    Value v = op->getResult(0);
    if (auto index = programIndex(v))
      if (auto it = chosenIds.find(*index);
          it != chosenIds.end() && it->second != v)
        aliases[v] = it->second;
  });
  return args;
}

/// What an execution observes of the control arguments: the integers that
/// arith ops compute from them and constants alone (`ops`, in execution
/// order, with the constants they read), where anything else the
/// interpreter executes reads them (`observed`, arguments included).
struct Observation {
  llvm::SmallVector<Operation *> ops;
  llvm::SmallVector<Value> observed;
};

Observation observation(func::FuncOp func, const llvm::SetVector<Value> &args,
                        const llvm::DenseMap<Value, Value> &aliases) {
  Observation o;
  llvm::SetVector<Value> derived(args.begin(), args.end());
  for (auto [alias, chosen] : aliases)
    derived.insert(alias);
  llvm::DenseSet<Operation *> derivedOps;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
        !isa_and_nonnull<arith::ArithDialect>(op->getDialect()) ||
        !scalarWidth(op->getResult(0).getType()))
      return;
    bool fromArgs = false;
    for (Value v : op->getOperands()) {
      if (derived.contains(v))
        fromArgs = true;
      else if (!v.getDefiningOp<arith::ConstantOp>())
        return;
    }
    if (!fromArgs)
      return;
    for (Value v : op->getOperands())
      if (auto c = v.getDefiningOp<arith::ConstantOp>())
        o.ops.push_back(c);
    o.ops.push_back(op);
    derivedOps.insert(op);
    derived.insert(op->getResult(0));
  });
  for (Value v : derived)
    if (llvm::any_of(v.getUsers(), [&](Operation *u) {
          return !derivedOps.contains(u) && Interpreter::readsOperands(u);
        }))
      o.observed.push_back(v);
  return o;
}

std::string argName(func::FuncOp func, Value v) {
  if (auto pid = v.getDefiningOp<kcc::ProgramIdOp>())
    return "program_id(" + std::to_string(pid.getAxis()) + ")";
  if (auto n = v.getDefiningOp<kcc::NumProgramsOp>())
    return "num_programs(" + std::to_string(n.getAxis()) + ")";
  if (auto load = v.getDefiningOp<kcc::LoadOp>()) {
    if (auto at = load.getLoc()->findInstanceOf<FileLineColLoc>())
      return "the value loaded at line " + std::to_string(at.getLine()) +
             ", column " + std::to_string(at.getColumn());
    return "a value loaded from memory";
  }
  auto arg = cast<BlockArgument>(v);
  auto names = func->getAttrOfType<ArrayAttr>(kcc::KccDialect::kArgNamesAttr);
  if (names && names.size() == func.getNumArguments())
    if (auto s = dyn_cast<StringAttr>(names[arg.getArgNumber()]))
      return s.getValue().str();
  return "argument #" + std::to_string(arg.getArgNumber());
}

/// Representative values of one control argument.
llvm::SmallVector<int64_t> representatives(func::FuncOp func, Value arg,
                                           int64_t depth,
                                           ArrayRef<int64_t> divisors,
                                           int64_t large) {
  int64_t unit = 1;
  if (auto a = dyn_cast<BlockArgument>(arg))
    if (auto d = func.getArgAttrOfType<IntegerAttr>(
            a.getArgNumber(), kcc::KccDialect::kDivisibilityAttr))
      unit = std::max<int64_t>(1, d.getInt());
  llvm::SmallVector<int64_t> values;
  auto add = [&](int64_t v) {
    v = wrap(v, scalarWidth(arg.getType()));
    if (!llvm::is_contained(values, v))
      values.push_back(v);
  };
  for (int64_t t = 0; t <= 2 * depth + 2; ++t)
    add(mulWrap(t, unit));
  add(mulWrap(large, unit));
  // Sizes divided into tiles: cover trip counts 0 .. 2*depth+2 of the tiles
  // too (exact multiples and one more element).
  for (int64_t d : divisors)
    if (d % unit == 0)
      for (int64_t t = 0; t <= 2 * depth + 2; ++t) {
        add(mulWrap(t, d));
        add(addWrap(mulWrap(t, d), unit));
      }
  return values;
}

constexpr llvm::StringLiteral kCannotProve =
    "cannot prove the async protocol: ";

/// Whether `v` is computed from loaded values (loads, atomics' old values); a select on one of `chosen`
/// (conditions whose sides the verifier fixes) reads only its two sides,
/// and a load among `chosenLoads` (control values the verifier fixes) is
/// not data.
bool computedFromLoads(Value v, const llvm::DenseSet<Value> &chosen,
                       const llvm::SetVector<Value> &chosenLoads = {}) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto sel = x.getDefiningOp<arith::SelectOp>();
        sel && chosen.contains(sel.getCondition())) {
      work.push_back(sel.getTrueValue());
      work.push_back(sel.getFalseValue());
      continue;
    }
    // A loop-carried value: what initializes it and what each trip yields
    // (a group found by scanning an offsets array in a loop).
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
          loop && arg.getArgNumber() > 0) {
        unsigned i = arg.getArgNumber() - 1;
        work.push_back(loop.getInitArgs()[i]);
        work.push_back(loop.getBody()->getTerminator()->getOperand(i));
      }
      continue;
    }
    Operation *def = x.getDefiningOp();
    // An atomic's old value is read from memory too (a ticket drawn by the
    // last program of a split-K tile).
    if (isa<kcc::LoadOp, kcc::AtomicRMWOp, kcc::AtomicCASOp>(def)) {
      if (chosenLoads.contains(x))
        continue;
      return true;
    }
    for (Value operand : def->getOperands())
      work.push_back(operand);
    // A loop's or branch's result: the values its regions yield.
    for (Region &region : def->getRegions())
      for (Block &block : region)
        if (Operation *term = block.getTerminator();
            term && term->getNumOperands() == def->getNumResults())
          work.push_back(term->getOperand(cast<OpResult>(x).getResultNumber()));
  }
  return false;
}

/// `text` with the async ops it names (kcc.tma_load, ...) described in
/// words, for a kernel's author (the `generated` option). The words take
/// the op name's place after the sentence's own article ("a kcc.tma_load").
std::string describeOps(llvm::StringRef text) {
  static const std::pair<const char *, const char *> kWords[] = {
      {"smem_alloc", "shared-memory stage buffer"},
      {"mbarrier_alloc", "mbarrier array"},
      {"mbarrier_init", "mbarrier initialization"},
      {"fence_mbarrier_init", "fence after mbarrier initialization"},
      {"mbarrier_arrive_expect_tx", "mbarrier arrival expecting bytes"},
      {"mbarrier_arrive", "mbarrier arrival"},
      {"mbarrier_wait", "mbarrier wait"},
      {"mbarrier_inval", "mbarrier invalidation"},
      {"tma_load", "TMA copy into shared memory"},
      {"tma_store", "TMA copy out of shared memory"},
      {"bulk_commit_group", "commit of TMA stores"},
      {"bulk_wait_group", "wait for TMA stores"},
      {"cp_async_commit_group", "commit of cp.async copies"},
      {"cp_async_wait_group", "wait for cp.async copies"},
      {"cp_async", "cp.async copy"},
      {"cp_async_gather", "cp.async copy of a gathered tile"},
      {"warp_mma", "mma.sync product"},
      {"fence_proxy_async", "proxy fence"},
      {"cta_barrier", "block barrier"},
      {"smem_load", "read of a shared-memory stage"},
      {"smem_store", "write of a shared-memory stage"},
      {"warpgroup_mma_reg_a", "wgmma product from registers"},
      {"warpgroup_mma_wait", "wait for wgmma products"},
      {"warpgroup_mma", "wgmma product"},
      {"warpgroup_turn", "warpgroup's turn"},
      {"consumer_group", "consumer warpgroups"},
      {"warp_specialize", "warp-specialized region"},
      {"tmem_alloc", "tensor-memory allocation"},
      {"tmem_dealloc", "tensor-memory release"},
      {"tmem_load", "read of tensor memory"},
      {"scf.for", "loop"},
      {"scf.if", "branch"}};
  std::string out;
  while (!text.empty()) {
    size_t at = text.find_first_of("ks");
    if (at == llvm::StringRef::npos) {
      out += text.str();
      break;
    }
    out += text.take_front(at).str();
    text = text.drop_front(at);
    bool replaced = false;
    for (auto [name, words] : kWords) {
      std::string spelled = llvm::StringRef(name).starts_with("scf.")
                                ? name
                                : std::string("kcc.") + name;
      if (text.starts_with(spelled) && (text.size() == spelled.size() ||
                                        !(std::isalnum(text[spelled.size()]) ||
                                          text[spelled.size()] == '_'))) {
        out += words;
        text = text.drop_front(spelled.size());
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out += text.front();
      text = text.drop_front();
    }
  }
  return out;
}

struct VerifyAsyncProtocol
    : kcc::impl::KccVerifyAsyncProtocolBase<VerifyAsyncProtocol> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](func::FuncOp func) {
      if (!func.isExternal() && containsAsyncOp(func))
        ok &= verify(func);
    });
    if (!ok)
      signalPassFailure();
  }

  /// Emits `first` (with `with` after its problem) and returns false.
  bool report(const Diag &first, const std::string &with) {
    if (generated) {
      // kcc built this protocol: its failure is kcc's, told in the
      // kernel's terms (the user cannot write or change these ops).
      llvm::StringRef problem = first.problem;
      problem.consume_front(kCannotProve);
      InFlightDiagnostic d =
          emitError(first.loc)
          << "kcc cannot prove the asynchronous pipeline it built for this "
             "kernel safe, so it does not emit it (a limitation of kcc, not "
             "an error in the kernel): "
          << describeOps(problem) << with;
      // Advice in the kernel's terms (a smaller trip count) is kept; advice
      // to add or move an op is for kcc's pipeline, not the author.
      llvm::StringRef advice = first.advice;
      if (!advice.empty() && !advice.contains("kcc.") &&
          !advice.contains("scf.") && !advice.contains("arith"))
        d << "; " << advice;
      for (auto &[loc, text] : first.notes)
        d.attachNote(loc) << describeOps(text);
      d.attachNote(first.loc)
          << "kcc does not emit a pipeline it cannot prove, and this check "
             "cannot be turned off; please report the kernel";
      return false;
    }
    InFlightDiagnostic d = emitError(first.loc)
                           << first.problem << with << "; " << first.advice;
    for (auto &[loc, text] : first.notes)
      d.attachNote(loc) << text;
    return false;
  }

  /// In a kernel launched as clusters (kcc.cluster), the interpreter runs
  /// one CTA and lets its multicast copies and cluster arrivals stand for
  /// every CTA's, which holds where the cluster's CTAs take the same steps:
  /// those ops under control flow, and the copies at coordinates, equal in
  /// every CTA (kcc::ClusterUniform). The first op where that fails.
  std::optional<Diag> clusterDivergence(func::FuncOp func) {
    auto n = func->getAttrOfType<IntegerAttr>(kcc::KccDialect::kClusterAttr);
    if (!n)
      return std::nullopt;
    kcc::ClusterUniform uniform(unsigned(n.getInt()));
    std::optional<Diag> found;
    func.walk([&](Operation *op) {
      auto load = dyn_cast<kcc::TmaLoadOp>(op);
      auto arrive = dyn_cast<kcc::MBarrierArriveOp>(op);
      bool shared =
          (load && load.getMulticast()) || (arrive && arrive.getCluster());
      if (!shared)
        return WalkResult::advance();
      const char *what = load ? "multicast copy" : "cluster-wide arrival";
      if (Operation *at = kcc::divergentControl(op, func, uniform))
        found = Diag{op->getLoc(),
                     std::string(kCannotProve) + "this " + what +
                         " runs under control flow that the cluster's CTAs "
                         "may take differently, so a peer may wait for a "
                         "copy or an arrival that never comes",
                     "compute the pipeline's loop bounds and conditions "
                     "from values equal in the cluster's CTAs",
                     {{at->getLoc(), "this control flow depends on the "
                                     "CTA's rank in its cluster"}}};
      else if (load && !llvm::all_of(load.getCoords(), std::ref(uniform)))
        found = Diag{op->getLoc(),
                     std::string(kCannotProve) +
                         "this multicast copy's coordinates may differ "
                         "between the cluster's CTAs, which each copy a "
                         "part of one box for all of them",
                     "multicast only boxes whose coordinates are equal in "
                     "the cluster's CTAs",
                     {}};
      return found ? WalkResult::interrupt() : WalkResult::advance();
    });
    return found;
  }

  bool verify(func::FuncOp func) {
    if (std::optional<Diag> d = clusterDivergence(func))
      return report(*d, "");
    int64_t depth = 1;
    func.walk([&](kcc::SmemAllocOp a) {
      depth = std::max<int64_t>(depth, a.getType().getStages());
    });
    depth = std::min<int64_t>(depth, 16); // bounds the number of choices
    llvm::SmallVector<int64_t> divisors;
    llvm::DenseMap<Value, Value> aliases;
    llvm::SetVector<Value> args = controlArguments(func, divisors, aliases);
    if (divisors.size() > 3)
      divisors.resize(3);
    int64_t large = 8 * std::lcm<int64_t>(depth, 2) + 3;
    llvm::SmallVector<llvm::SmallVector<int64_t>> values;
    llvm::SmallVector<int64_t> largeValues;
    for (Value a : args) {
      values.push_back(representatives(func, a, depth, divisors, large));
      largeValues.push_back(values.back()[std::min<size_t>(
          2 * depth + 3, values.back().size() - 1)]);
    }

    // The choices: the full cross product when small enough, else every
    // argument varied alone with the others at the large value.
    std::vector<llvm::SmallVector<int64_t>> choices;
    size_t product = 1;
    for (auto &v : values)
      product = std::min<size_t>(product * v.size(), kMaxCombinations + 1);
    if (product <= kMaxCombinations) {
      llvm::SmallVector<int64_t> cur(values.size());
      std::function<void(size_t)> rec = [&](size_t i) {
        if (i == values.size()) {
          choices.push_back(cur);
          return;
        }
        for (int64_t v : values[i]) {
          cur[i] = v;
          rec(i + 1);
        }
      };
      rec(0);
    } else {
      for (size_t i = 0; i < values.size(); ++i)
        for (int64_t v : values[i]) {
          llvm::SmallVector<int64_t> cur(values.size());
          for (size_t j = 0; j < values.size(); ++j)
            cur[j] = j == i ? v : largeValues[j];
          choices.push_back(cur);
        }
    }

    // Data-dependent branches (kcc.data_dependent, and the kernel's own
    // whose condition is computed from loaded values, e.g. a group's end
    // read from an offsets array): every combination of sides, for every
    // argument choice. A scalar condition is the same in every thread, so
    // the sides are the executions there are.
    // Scalar selects computed from loads that a pipelined loop's bounds
    // read (a program with no group tile runs no trip): both sides, chosen
    // by their condition (every role's copy of the select agrees). Values
    // computed from them are then known, so they are not explored again.
    // Each entry is one decision: a branch, or a select condition with the
    // copies the roles made of it (same location: a clone computes the same
    // value, so both roles must see the same side).
    llvm::SmallVector<llvm::SmallVector<Operation *, 2>> dataIfs;
    llvm::DenseSet<Value> chosenConditions;
    llvm::DenseMap<Location, unsigned> conditionAt;
    func.walk([&](scf::ForOp loop) {
      if (!containsAsyncOp(loop))
        return;
      llvm::SmallVector<Value> work{loop.getLowerBound(), loop.getUpperBound()};
      llvm::DenseSet<Value> seen;
      while (!work.empty()) {
        Value x = work.pop_back_val();
        Operation *def = x.getDefiningOp();
        if (!seen.insert(x).second || !def || def->getNumRegions())
          continue;
        if (auto sel = dyn_cast<arith::SelectOp>(def);
            sel && sel.getCondition().getDefiningOp() &&
            computedFromLoads(sel.getCondition(), {})) {
          Operation *cond = sel.getCondition().getDefiningOp();
          if (chosenConditions.insert(sel.getCondition()).second) {
            auto [it, fresh] =
                conditionAt.try_emplace(cond->getLoc(), dataIfs.size());
            if (fresh)
              dataIfs.push_back({});
            dataIfs[it->second].push_back(cond);
          }
          work.push_back(sel.getTrueValue());
          work.push_back(sel.getFalseValue());
          continue;
        }
        work.append(def->getOperands().begin(), def->getOperands().end());
      }
    });
    // Data-dependent branches (kcc.data_dependent, and the kernel's own
    // whose condition is computed from loaded values, e.g. a group's end
    // read from an offsets array): every combination of sides, for every
    // argument choice. A scalar condition is the same in every thread, so
    // the sides are the executions there are.
    func.walk([&](scf::IfOp i) {
      if (i->hasAttr(kcc::KccDialect::kDataDependentAttr) ||
          (containsAsyncOp(i) &&
           computedFromLoads(i.getCondition(), chosenConditions, args)))
        dataIfs.push_back({i});
    });
    if (dataIfs.size() > kMaxDataBranches) {
      emitError(dataIfs[kMaxDataBranches].front()->getLoc())
          << "cannot prove the async protocol: the verifier explores at most "
          << kMaxDataBranches
          << " data-dependent branches per kernel; split the kernel";
      return false;
    }
    // Warp-specialized kernels: each run once with the producer starting,
    // once with the consumer starting.
    bool specialized = false;
    func.walk([&](kcc::WarpSpecializeOp) { specialized = true; });
    llvm::SmallVector<Role> schedules{Producer};
    if (specialized)
      schedules.push_back(Consumer);
    std::optional<Diag> first;
    llvm::SmallVector<int64_t> firstChoice;
    // The schedule of the first failure when the other one passed with the
    // same choice and branch sides (then it is worth naming).
    int firstOnlyIn = Cta;
    size_t failures = 0;
    bool limited = false;
    Observation seen = observation(func, args, aliases);
    std::map<std::vector<int64_t>, bool> failedFor; // by what is observed
    for (auto [index, choice] : llvm::enumerate(choices)) {
      llvm::DenseMap<Value, int64_t> bound;
      for (auto [a, v] : llvm::zip(args, choice))
        bound[a] = v;
      for (auto [alias, chosen] : aliases)
        bound[alias] = bound[chosen];
      std::vector<int64_t> key;
      for (const Scalar &s :
           Interpreter(func, bound).evaluate(seen.ops, seen.observed)) {
        if (!s.isConst()) {
          key = {-1, static_cast<int64_t>(index)};
          break;
        }
        key.push_back(s.c);
      }
      if (auto it = failedFor.find(key); it != failedFor.end()) {
        failures += it->second;
        continue;
      }
      bool failed = false;
      for (unsigned sides = 0; sides < (1u << dataIfs.size()) && !failed;
           ++sides) {
        llvm::DenseMap<Operation *, bool> branches;
        for (auto [i, ops] : llvm::enumerate(dataIfs))
          for (Operation *op : ops)
            branches[op] = (sides >> i) & 1;
        llvm::SmallVector<int> failedIn;
        std::optional<Diag> diag;
        for (Role start : schedules) {
          Interpreter interp(func, bound, &branches, start);
          if (interp.run())
            continue;
          failedIn.push_back(start);
          limited = limited || interp.outOfSteps;
          if (!diag)
            diag = interp.diag;
        }
        if (failedIn.empty())
          continue;
        failed = true;
        if (!first) {
          first = diag;
          firstChoice = choice;
          if (failedIn.size() < schedules.size())
            firstOnlyIn = failedIn.front();
        }
      }
      failures += failed;
      failedFor[key] = failed;
      // The verifier's step budget: every choice would reach it again.
      if (limited)
        break;
    }
    if (!first)
      return true;

    std::string with;
    bool named = failures < choices.size() && !args.empty() && !limited;
    if (named || firstOnlyIn != Cta) {
      llvm::raw_string_ostream os(with);
      os << " (";
      if (named) {
        os << "with ";
        for (size_t i = 0; i < args.size(); ++i)
          os << (i ? ", " : "") << argName(func, args[i]) << " = "
             << firstChoice[i];
      }
      if (firstOnlyIn != Cta)
        os << (named ? ", " : "") << "when the " << roleName(firstOnlyIn)
           << " starts first";
      os << ")";
    }
    return report(*first, with);
  }
};

} // namespace
