//===- TargetLookup.cpp - the target model a pass compiles for ------------===//

#include "ir/TargetLookup.h"
#include "ir/Dialect.h"

#include "targets/TargetModel.h"

using namespace mlir;
using namespace kcc;

const TargetRegistry &KccDialect::getTargetRegistry() const {
  return targetRegistry ? *targetRegistry : TargetRegistry::builtin();
}

void KccDialect::setTargetRegistry(const TargetRegistry *registry) {
  targetRegistry = registry;
}

const TargetRegistry &kcc::getTargetRegistry(MLIRContext *ctx) {
  auto *dialect = ctx->getLoadedDialect<KccDialect>();
  return dialect ? dialect->getTargetRegistry() : TargetRegistry::builtin();
}

const TargetModel *kcc::lookupTarget(ModuleOp module, StringRef name,
                                     StringRef pass, StringRef fallback) {
  StringRef source;
  if (name.empty()) {
    if (auto attr =
            module->getAttrOfType<StringAttr>(KccDialect::kTargetAttr)) {
      name = attr.getValue();
      source = " (the module's kcc.target)";
    } else {
      name = fallback;
    }
  }
  if (name.empty()) {
    module.emitError() << pass
                       << ": no target model: give the pass a target or the "
                          "module a "
                       << KccDialect::kTargetAttr << " attribute";
    return nullptr;
  }
  const TargetModel *model =
      getTargetRegistry(module.getContext()).lookup(name);
  if (!model)
    module.emitError() << pass << ": unknown target '" << name << "'" << source;
  return model;
}
