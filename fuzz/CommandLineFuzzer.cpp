//===- CommandLineFuzzer.cpp - libFuzzer target: kcc's argument vector ----===//
//
// The input is an argument vector, one argument per line, run through kcc's
// whole command line (kcc::runCommandLine: option parsing, the target-model
// files, the compile) in a scratch directory that holds a small kernel
// (k.kc), a target model (m.toml) and a difftest-style TOML file. A bug is a
// crash, a sanitizer report, an exit (libFuzzer reports those), "LLVM
// ERROR" or an assertion on standard error, or a failing exit status without
// an error message (or LLVM's own for an option's bad value).
//
// Arguments are kept inside kcc's own options and the scratch directory: an
// option that is not kcc's (libLLVM registers hidden ones that load plugins
// or write files anywhere), an absolute path, "..", "~", the standard-input
// name "-", `kcc legality` (it reads standard input; its reader has its own
// fuzzer) and --help/--version (they exit) make the input uninteresting.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzerUtil.h"
#include "tools/kcc/CommandLine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace {

// The scratch directory's files; everything else in it is an output and
// is removed after each run.
const char *const kKernel =
    R"(kernel scale<T: dtype>(x: ptr<T>, n: i32) grid(cdiv(n, 128))
    specialize(T = f32) specialize(T = f16)
{
  let i = program_id(0) * 128 + arange(0, 128);
  store(x + i, load(x + i, i < n) * cast(2.0, T), i < n);
}
)";
const char *const kModel = R"(name = "sm_90a-small"
inherits = "sm_90a"
description = "sm_90a with a 16K-register file"

[warp_specialization]
producer_registers = 40
consumer_registers = 232
register_file = 16384
)";
const char *const kSeeds[][2] = {{"k.kc", kKernel}, {"m.toml", kModel}};

std::string scratch;

bool writeFile(StringRef name, StringRef text) {
  std::error_code ec;
  raw_fd_ostream os(name, ec);
  if (ec)
    return false;
  os << text;
  return true;
}

/// Removes what a run wrote, keeping the seed files.
void clean() {
  std::error_code ec;
  std::vector<std::string> outputs;
  for (sys::fs::directory_iterator it(".", ec), end; !ec && it != end;
       it.increment(ec)) {
    StringRef name = sys::path::filename(it->path());
    if (none_of(kSeeds, [&](const auto &s) { return name == s[0]; }))
      outputs.push_back(it->path());
  }
  for (const std::string &path : outputs)
    (void)sys::fs::remove_directories(path);
}

/// Whether the argument stays inside kcc's options and the scratch
/// directory (see the file comment).
bool allowed(StringRef arg, bool &stop) {
  if (arg.empty() || arg == "-" || arg.contains("..") || arg.contains('~') ||
      arg.contains('\0'))
    return false;
  auto isPath = [](StringRef v) { return !v.starts_with("/"); };
  if (!arg.starts_with("-"))
    return isPath(arg);
  if (arg == "--")
    return (stop = true);
  StringRef body = arg.drop_front(arg.starts_with("--") ? 2 : 1);
  auto [name, value] = body.split('=');
  if (!isPath(value))
    return false;
  if (name.starts_with("help") || name == "version" ||
      name.starts_with("print"))
    return false;
  const cl::OptionCategory &kcc = kcc::commandLineCategory();
  auto &options = cl::getRegisteredOptions();
  auto ours = [&](StringRef n) {
    auto it = options.find(n);
    return it != options.end() && is_contained(it->second->Categories, &kcc);
  };
  if (ours(name))
    return true;
  // -O3, -j4, -DNAME=1: kcc's prefix options.
  return !name.empty() && StringRef("ODj").contains(name.front()) &&
         ours(name.take_front(1));
}

} // namespace

/// Runs `f` in the scratch directory (made on the first call): libFuzzer's
/// own paths (corpus, dictionary, artifacts) are relative to where it
/// started.
template <typename F> void inScratch(F f) {
  SmallString<128> home;
  if (sys::fs::current_path(home))
    kcc::fuzz::bug("cannot read the current directory");
  if (scratch.empty()) {
    SmallString<128> dir;
    if (sys::fs::createUniqueDirectory("kcc-cli-fuzz", dir))
      kcc::fuzz::bug("cannot make a scratch directory");
    scratch = std::string(dir);
    std::atexit([] { (void)sys::fs::remove_directories(scratch); });
    if (sys::fs::set_current_path(scratch))
      kcc::fuzz::bug("cannot enter the scratch directory");
    for (const auto &[name, text] : kSeeds)
      if (!writeFile(name, text))
        kcc::fuzz::bug("cannot write the scratch directory's seed files");
  } else if (sys::fs::set_current_path(scratch)) {
    kcc::fuzz::bug("cannot enter the scratch directory");
  }
  f();
  clean();
  if (sys::fs::set_current_path(home))
    kcc::fuzz::bug("cannot go back to the starting directory");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StringRef input(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> args = {"kcc"};
  bool positionalOnly = false;
  for (StringRef line : split(input, '\n')) {
    line = line.rtrim('\r');
    if (args.size() > 16 || line.size() > 256)
      return -1;
    if (!positionalOnly && !allowed(line, positionalOnly))
      return -1;
    if (positionalOnly && (line.starts_with("/") || line.contains("..")))
      return -1;
    args.push_back(line.str());
  }
  if (args.size() > 1 && args[1] == "legality")
    return -1;

  // Standard error to a file: what kcc says decides whether it is a bug.
  SmallString<64> errPath;
  int errFd;
  if (sys::fs::createTemporaryFile("kcc-cli-fuzz", "err", errFd, errPath))
    kcc::fuzz::bug("cannot make a temporary file");
  int savedErr = dup(2);
  dup2(errFd, 2);
  close(errFd);

  cl::ResetAllOptionOccurrences();
  std::vector<const char *> argv;
  for (const std::string &a : args)
    argv.push_back(a.c_str());
  int status = 0;
  inScratch([&] {
    status = kcc::runCommandLine(argv.size(), argv.data());
    errs().flush();
  });

  dup2(savedErr, 2);
  close(savedErr);
  std::string err;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> b = MemoryBuffer::getFile(errPath))
    err = (*b)->getBuffer().str();
  (void)sys::fs::remove(errPath);

  if (StringRef(err).contains("LLVM ERROR") ||
      StringRef(err).contains("Assertion `") ||
      StringRef(err).contains("PLEASE submit a bug report"))
    kcc::fuzz::bug("kcc " + join(drop_begin(args), " ") + ":\n" + err);
  // LLVM prints an option's bad value itself, as "kcc: for the --x option:
  // ..." (tools/kcc/CommandLine.cpp).
  if (status != 0 && !StringRef(err).contains("error") &&
      !StringRef(err).contains("kcc: for the -"))
    kcc::fuzz::bug("kcc " + join(drop_begin(args), " ") + " exited with " +
                   Twine(status) + " and no error message:\n" + err);
  return 0;
}
