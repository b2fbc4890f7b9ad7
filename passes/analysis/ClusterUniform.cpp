//===- ClusterUniform.cpp - values equal in every CTA of a cluster --------===//
#include "passes/analysis/ClusterUniform.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

bool kcc::ClusterUniform::operator()(Value v) {
  if (varying.contains(v))
    return false;
  auto [it, inserted] = known.try_emplace(v, false);
  if (!inserted)
    return it->second;
  bool u = compute(v);
  known[v] = u;
  return u;
}

bool kcc::ClusterUniform::iterArg(scf::ForOp loop, BlockArgument arg) {
  // By induction over the iterations (the loop's bounds being equal, every
  // CTA runs the same ones): equal at entry, and the value yielded for it
  // is equal wherever it is. A persistent kernel's tile counter and a
  // pipeline's carried stage counters are such values.
  known[arg] = true;
  unsigned i = arg.getArgNumber() - 1;
  bool u = (*this)(loop.getLowerBound()) && (*this)(loop.getUpperBound()) &&
           (*this)(loop.getStep()) && (*this)(loop.getInitArgs()[i]) &&
           (*this)(loop.getBody()->getTerminator()->getOperand(i));
  if (!u) {
    // What was found equal assuming it may not be: start again without.
    varying.insert(arg);
    known.clear();
  }
  return u;
}

bool kcc::ClusterUniform::compute(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<func::FuncOp>(owner))
      return true;
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (arg != loop.getInductionVar())
        return iterArg(loop, arg);
      return (*this)(loop.getLowerBound()) && (*this)(loop.getUpperBound()) &&
             (*this)(loop.getStep());
    }
    return false;
  }
  Operation *def = v.getDefiningOp();
  if (auto id = dyn_cast<ProgramIdOp>(def))
    return id.getAxis() != 0;
  if (isa<NumProgramsOp>(def))
    return true;
  // program_id(0) / k, k a multiple of the cluster: the cluster's index.
  if (isa<arith::DivSIOp, arith::DivUIOp>(def)) {
    auto id = def->getOperand(0).getDefiningOp<ProgramIdOp>();
    IntegerAttr k;
    if (id && id.getAxis() == 0 &&
        matchPattern(def->getOperand(1), m_Constant(&k)) && k.getInt() > 0 &&
        k.getInt() % ctas == 0)
      return true;
  }
  if (def->getNumRegions() || !isMemoryEffectFree(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value o) { return (*this)(o); });
}

Operation *kcc::divergentControl(Operation *op, Operation *stop,
                                 ClusterUniform &uniform) {
  for (Operation *p = op->getParentOp(); p && p != stop; p = p->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(p)) {
      if (!uniform(loop.getLowerBound()) || !uniform(loop.getUpperBound()) ||
          !uniform(loop.getStep()))
        return p;
    } else if (auto branch = dyn_cast<scf::IfOp>(p)) {
      if (!uniform(branch.getCondition()))
        return p;
    } else if (!isa<WarpSpecializeOp, func::FuncOp>(p)) {
      return p;
    }
  }
  return nullptr;
}
