//===- Interpreter.h - structured-control-flow interpreter ------*- C++ -*-===//
//
// One execution of a function for one choice of its control arguments (and
// of the sides of its data-dependent branches): integer scalars are
// evaluated exactly or as linear forms, scf.for runs every iteration, scf.if
// takes the side its condition selects, and every async op goes through its
// transfer rule (Rules.h). Execution is capped at kMaxSteps operations.
//
// The position of each executor (the whole CTA, and the two roles of
// kcc.warp_specialize) is a Continuation: an explicit stack of frames, so
// that the role scheduler (RoleScheduler.h) can suspend a role at a wait
// that cannot complete yet and resume it later, all on one thread.
//
//===----------------------------------------------------------------------===//

#ifndef KCC_PASSES_VERIFY_ASYNC_INTERPRETER_H
#define KCC_PASSES_VERIFY_ASYNC_INTERPRETER_H

#include "passes/verify/async/Typestate.h"

#include "ir/Dialect.h"
#include "llvm/ADT/Twine.h"

#include <optional>

namespace kcc::verify {

class RoleScheduler;

/// Operations executed per choice before the verifier gives up.
constexpr int64_t kMaxSteps = 1 << 20;

/// A block being executed, and what to do when it ends.
struct Frame {
  enum Kind {
    Body,     // the function's or a role's region: the executor is done
    LoopBody, // an iteration of scf.for `owner`: the next one, or leave it
    IfBody,   // the side scf.if `owner` took: leave it
  } kind;
  mlir::Block *block;
  mlir::Block::iterator next; // the op to execute next
  mlir::Operation *owner = nullptr;
  // LoopBody: the loop's state, kept across iterations.
  int64_t iv = 0, ub = 0, step = 0, trip = 0, start = 0;
  unsigned width = 0;
  bool isUnsigned = false;
};

/// Where an executor is: its frames, innermost last.
struct Continuation {
  llvm::SmallVector<Frame, 4> frames;
  // The op at the top is a wait that blocked: its step was counted.
  bool atBlockedWait = false;
};

/// Why Interpreter::resume returned.
enum class Outcome {
  Done,      // the executor's region ended
  Failed,    // a diagnostic was recorded
  Blocked,   // a role stopped at a wait whose phase cannot complete yet
  Preempted, // a role's op made the other role's blocked wait completable
};

class Interpreter {
public:
  Interpreter(mlir::func::FuncOp func,
              const llvm::DenseMap<mlir::Value, int64_t> &args,
              const llvm::DenseMap<mlir::Operation *, bool> *branches = nullptr,
              Role firstRole = Producer);

  /// Runs the function; false with `diag` set on the first violation.
  bool run();

  /// Evaluates `ops` (integer arith ops in execution order, their operands
  /// among the arguments, constants and earlier `ops`) without running the
  /// function, and returns the values of `observed`: what the execution can
  /// see of the arguments (VerifyAsyncProtocol.cpp, "Equivalent choices").
  llvm::SmallVector<Scalar> evaluate(llvm::ArrayRef<mlir::Operation *> ops,
                                     llvm::ArrayRef<mlir::Value> observed);
  /// Whether executing `op` reads its operands (else it is skipped: an op
  /// that is neither control flow nor async and defines no integer).
  static bool readsOperands(mlir::Operation *op);

  std::optional<Diag> diag;
  /// Whether the run stopped at kMaxSteps (a limit of the verifier, which
  /// other argument choices would reach again).
  bool outOfSteps = false;
  /// The typestate the transfer rules check and advance.
  CtaState state;

  //===--------------------------------------------------------------------===//
  // What the transfer rules see of the execution
  //===--------------------------------------------------------------------===//

  /// The executor running now.
  Role role() const { return current; }
  /// What the running executor's threads have in flight (per consumer
  /// group).
  IssueQueues &queues() { return state.queues[current == Consumer2]; }
  /// The step count: the clock that orders reads, arrivals and releases.
  int64_t now() const { return steps; }
  /// The roles of the kcc.warp_specialize being executed, else null.
  RoleScheduler *roles() const { return scheduler; }

  /// The value of integer `v` (opaque if no modeled op computed it).
  Scalar get(mlir::Value v);
  /// Sets what `v` holds (a wgmma accumulator: the id of the group writing
  /// it, 0 when retired).
  void set(mlir::Value v, Scalar s) { slot(v) = std::move(s); }
  /// A new wgmma group's id (positive).
  int64_t newMmaId() { return ++mmaIds; }
  /// The value of `v` if it has one already (nothing is made up).
  const Scalar *lookup(mlir::Value v) const;
  /// The constant value of `v`, or an error at `op` naming `what`.
  std::optional<int64_t> known(mlir::Operation *op, mlir::Value v,
                               const llvm::Twine &what);
  bool cannotProve(mlir::Operation *op, const llvm::Twine &what);
  /// Records the diagnostic, with the running role's loop iteration.
  Diag &fail(mlir::Location loc, const llvm::Twine &problem,
             const llvm::Twine &advice);
  /// " (loop iteration with induction variable ...)" of role `r`, or "".
  std::string context(int r) const;
  /// Whether executor `r` is inside an scf.for.
  bool inLoop(int r) const { return hasLoops(conts[r]); }

  /// Exit facts: the func.return reached, and the last loop that finished
  /// at nesting depth 0 with its trip count and the step count when it
  /// started.
  mlir::Location exitLoc() const;
  mlir::Operation *lastTopLoop() const { return topLoop; }
  int64_t lastTopTrip() const { return topTrip; }
  int64_t lastTopStart() const { return topStart; }

  //===--------------------------------------------------------------------===//
  // What the role scheduler drives
  //===--------------------------------------------------------------------===//

  /// Positions role `r` at the start of `body` (null: an empty region).
  void startRole(Role r, mlir::Block *body);
  /// Runs role `r` from where it stopped until it ends, fails, blocks or
  /// is preempted.
  Outcome resume(Role r);
  /// The wait at which role `r` blocked.
  kcc::MBarrierWaitOp blockedWait(Role r) const;
  /// Makes the roles' scheduler known while it runs (null: none), and
  /// hands the execution back to the CTA.
  void setScheduler(RoleScheduler *s);
  /// Evaluates as role `r` while it lives (the scheduler asking whether a
  /// suspended role's wait can complete reads that role's values).
  class AsRole {
  public:
    AsRole(Interpreter &in, Role r) : in(in), saved(in.current) {
      in.current = r;
    }
    ~AsRole() { in.current = saved; }

  private:
    Interpreter &in;
    Role saved;
  };

private:
  /// How executing one op ended.
  enum class Step { Done, Entered, Failed };

  Outcome advance(Continuation &c);
  Step exec(Continuation &c, mlir::Operation *op);
  Step enterFor(Continuation &c, mlir::scf::ForOp forOp);
  Step enterIf(Continuation &c, mlir::scf::IfOp ifOp);
  void beginIteration(Frame &f, llvm::ArrayRef<Scalar> iter);
  /// The block at the top ends (at `terminator`, or null without one).
  std::optional<Outcome> endBlock(Continuation &c, mlir::Operation *terminator);
  /// The op at the top of `c` completed: moves past it, and preempts a role
  /// whose op made the other role's blocked wait completable.
  std::optional<Outcome> finishOp(Continuation &c);
  void finishLoop(Continuation &c, mlir::scf::ForOp forOp, int64_t trip,
                  int64_t start, llvm::ArrayRef<Scalar> iter);
  bool hasLoops(const Continuation &c) const;
  mlir::Operation *outermostLoop(const Continuation &c) const;
  llvm::SmallVector<Scalar> yieldedValues(mlir::Operation *terminator);
  Scalar fresh();
  void evalScalar(mlir::Operation *op);

  mlir::func::FuncOp func;
  const llvm::DenseMap<mlir::Operation *, bool> *branches;
  Role firstRole;
  llvm::DenseMap<mlir::Value, Scalar> env;
  // The values consumer group 1 computes in the consumer region (lookup).
  llvm::DenseMap<mlir::Value, Scalar> env2;
  Scalar &slot(mlir::Value v) {
    return current == Consumer2 ? env2[v] : env[v];
  }
  unsigned nextSym = 0;
  int64_t steps = 0;
  int64_t mmaIds = 0;
  // Tiles a persistent tile loop runs (2 * the deepest buffer + 2).
  int64_t tileCap = 0;
  /// Program ids chosen like control arguments (their values here).
  llvm::DenseMap<mlir::Value, int64_t> chosenIds;
  mlir::Operation *returnOp = nullptr;
  mlir::Operation *topLoop = nullptr;
  int64_t topTrip = 0, topStart = 0;

  Role current = Cta;
  std::array<Continuation, kRoles> conts;
  RoleScheduler *scheduler = nullptr;
};

} // namespace kcc::verify

#endif // KCC_PASSES_VERIFY_ASYNC_INTERPRETER_H
