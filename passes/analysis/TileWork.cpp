//===- TileWork.cpp - how a program's work changes along the grid ---------===//
#include "passes/analysis/TileWork.h"

#include "ir/Dialect.h"
#include "passes/analysis/ReadOnlyMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace {

/// How a value changes with program_id(0), as bits: none (the same for
/// every program), up, down; both means unknown. Sums and min/max of two
/// values move the way either does, so their bits are the union.
enum Direction : unsigned { Same = 0, Up = 1, Down = 2, Unknown = 3 };

Direction unite(Direction a, Direction b) { return Direction(a | b); }
Direction negate(Direction d) {
  return Direction(((d & Up) ? Down : 0) | ((d & Down) ? Up : 0));
}

class Directions {
public:
  explicit Directions(func::FuncOp func) : readOnly(func) {}

  Direction of(Value v) {
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    memo[v] = Unknown; // a cycle through loop-carried values
    Direction d = compute(v);
    memo[v] = d;
    return d;
  }

  /// The direction of the number of trips of `loop`.
  Direction tripsOf(scf::ForOp loop) {
    if (of(loop.getStep()) != Same)
      return Unknown;
    return unite(of(loop.getUpperBound()), negate(of(loop.getLowerBound())));
  }

private:
  Direction compute(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (arg) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (isa<func::FuncOp>(owner))
        return Same; // a kernel argument
      // A loop's counter runs the same values in every program where its
      // bounds do.
      auto loop = dyn_cast<scf::ForOp>(owner);
      if (loop && arg == loop.getInductionVar())
        return unite(of(loop.getLowerBound()),
                     unite(of(loop.getUpperBound()), of(loop.getStep()))) ==
                       Same
                   ? Same
                   : Unknown;
      return Unknown;
    }
    Operation *def = v.getDefiningOp();
    if (auto id = dyn_cast<kcc::ProgramIdOp>(def))
      return id.getAxis() == 0 ? Up : Unknown;
    auto operand = [&](unsigned i) { return of(def->getOperand(i)); };
    APInt c;
    auto constantOperand = [&](unsigned i) {
      return matchPattern(def->getOperand(i), m_ConstantInt(&c));
    };
    if (isa<arith::AddIOp, arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
            arith::MaxUIOp>(def))
      return unite(operand(0), operand(1));
    if (isa<arith::SubIOp>(def))
      return unite(operand(0), negate(operand(1)));
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
            arith::IndexCastUIOp>(def))
      return operand(0);
    if (isa<arith::MulIOp>(def)) {
      for (unsigned i : {0u, 1u})
        if (constantOperand(i))
          return c.isZero()       ? Same
                 : c.isNegative() ? negate(operand(1 - i))
                                  : operand(1 - i);
      return unite(operand(0), operand(1)) == Same ? Same : Unknown;
    }
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
            arith::CeilDivUIOp, arith::FloorDivSIOp>(def)) {
      if (constantOperand(1) && c.isStrictlyPositive())
        return operand(0);
      return unite(operand(0), operand(1)) == Same ? Same : Unknown;
    }
    if (auto select = dyn_cast<arith::SelectOp>(def)) {
      BoolAttr known;
      if (matchPattern(select.getCondition(), m_Constant(&known)))
        return of(known.getValue() ? select.getTrueValue()
                                   : select.getFalseValue());
    }
    // Anything else is the same in every program where its operands are,
    // if it neither writes memory nor reads memory the kernel writes.
    if (def->getNumRegions() != 0 ||
        !(isPure(def) || readOnly.isReadOnlyLoad(def)))
      return Unknown;
    for (Value o : def->getOperands())
      if (of(o) != Same)
        return Unknown;
    return Same;
  }

  kcc::ReadOnlyMemory readOnly;
  llvm::DenseMap<Value, Direction> memo;
};

} // namespace

kcc::TileWork kcc::tileWorkAlongX(func::FuncOp func) {
  Directions directions(func);
  Direction all = Same;
  TileWork work;
  func.walk<WalkOrder::PreOrder>([&](LoopLikeOpInterface loop) {
    // A while loop's trips are not counted: unknown.
    auto counted = dyn_cast<scf::ForOp>(loop.getOperation());
    Direction d = counted ? directions.tripsOf(counted) : Unknown;
    // A loop that runs in some programs and not in others (an `if` on the
    // program ids around it) is uneven too.
    for (Operation *p = loop->getParentOp(); p && p != func;
         p = p->getParentOp())
      if (auto branch = dyn_cast<scf::IfOp>(p);
          branch && directions.of(branch.getCondition()) != Same)
        d = Unknown;
    if (d == Same)
      return;
    if (!work.loop)
      work.loop = loop.getOperation();
    all = unite(all, d);
  });
  work.kind = all == Same   ? TileWork::Even
              : all == Up   ? TileWork::Grows
              : all == Down ? TileWork::Shrinks
                            : TileWork::Uneven;
  return work;
}
