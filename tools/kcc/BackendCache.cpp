//===- BackendCache.cpp - what the LLVM half of a compile made, by content ===//
#include "tools/kcc/BackendCache.h"

#include "backends/nvidia/CodeGen.h"
#include "targets/TargetModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

constexpr StringLiteral kMagic = "kcc-backend-cache 1\n";

/// A file's identity: its path, size and modification time ("" if absent).
std::string fileIdentity(StringRef path) {
  sys::fs::file_status st;
  if (sys::fs::status(path, st))
    return "";
  return (path + ":" + Twine(st.getSize()) + ":" +
          Twine(st.getLastModificationTime().time_since_epoch().count()))
      .str();
}

void anchor() {}

} // namespace

std::string kcc::BackendCache::key(const Module &module,
                                   const TargetModel &target, unsigned optLevel,
                                   bool fpContract) {
  SHA256 hash;
  auto add = [&](StringRef s) {
    hash.update(s);
    hash.update(StringRef("\0", 1));
  };
  add(kMagic);
  add(KCC_VERSION);
  add(fileIdentity(
      sys::fs::getMainExecutable(nullptr, reinterpret_cast<void *>(&anchor))));
  add(target.name);
  add(target.llvmCpu());
  add(target.llvmFeatures());
  add(std::to_string(optLevel));
  add(fpContract ? "fp-contract" : "no-fp-contract");
  if (target.vendor == Vendor::NVIDIA) {
    Expected<std::string> ptxas = nvidia::findCudaTool("ptxas");
    add(ptxas ? fileIdentity(*ptxas) : (consumeError(ptxas.takeError()), ""));
  }
  std::string bitcode;
  raw_string_ostream os(bitcode);
  WriteBitcodeToFile(module, os);
  os.flush();
  add(bitcode);
  return toHex(hash.final(), /*LowerCase=*/true);
}

std::string kcc::BackendCache::path(StringRef key) const {
  SmallString<256> p(dir);
  sys::path::append(p, key + ".kccobj");
  return std::string(p);
}

bool kcc::BackendCache::load(StringRef key, BackendCacheEntry &entry) const {
  ErrorOr<std::unique_ptr<MemoryBuffer>> file =
      MemoryBuffer::getFile(path(key), /*IsText=*/false);
  if (!file)
    return false;
  StringRef data = (*file)->getBuffer();
  if (!data.consume_front(kMagic))
    return false;
  // Three fields, each "<bytes>\n" then the bytes.
  for (std::string *field : {&entry.output, &entry.ptx, &entry.ptxasLog}) {
    auto [size, rest] = data.split('\n');
    uint64_t n = 0;
    if (size.getAsInteger(10, n) || n > rest.size())
      return false;
    *field = rest.take_front(n).str();
    data = rest.drop_front(n);
  }
  return data.empty() && !entry.output.empty();
}

std::string kcc::BackendCache::store(StringRef key,
                                     const BackendCacheEntry &entry) const {
  if (std::error_code ec = sys::fs::create_directories(dir))
    return "cannot create the cache directory " + dir + ": " + ec.message();
  std::string final = path(key);
  SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec =
          sys::fs::createUniqueFile(final + ".%%%%%%.tmp", fd, temp))
    return "cannot write to the cache directory " + dir + ": " + ec.message();
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << kMagic;
    for (const std::string *field :
         {&entry.output, &entry.ptx, &entry.ptxasLog})
      os << field->size() << "\n" << *field;
    os.close();
    if (os.has_error()) {
      std::string why = os.error().message();
      os.clear_error();
      sys::fs::remove(temp);
      return "cannot write to the cache directory " + dir + ": " + why;
    }
  }
  if (std::error_code ec = sys::fs::rename(temp, final)) {
    sys::fs::remove(temp);
    return "cannot write to the cache directory " + dir + ": " + ec.message();
  }
  return "";
}
