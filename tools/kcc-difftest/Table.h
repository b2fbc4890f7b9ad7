//===- Table.h - kcc-difftest's result table ----------------------*- C++
//-*-===//
//
// One row per (kernel, specialization, case), one column per leg (PASS,
// FAIL or SKIP(reason)) plus extra columns such as timings; the details of
// every failure are listed under the table.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_DIFFTEST_TABLE_H
#define KCC_TOOLS_DIFFTEST_TABLE_H

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace kcc::difftest {

class Table {
public:
  /// How the summary line counts: every leg cell (--compare's table), or
  /// one verdict per case (FAIL if a leg fails, PASS if one passes, else
  /// SKIP) followed by one line of counts per leg.
  enum class Summary { Cells, CasesAndLegs };

  /// `columns`: the legs' columns, then `extra` columns (timings) that the
  /// summary does not count.
  explicit Table(std::vector<std::string> columns, unsigned extra = 0,
                 Summary summary = Summary::Cells)
      : columns(std::move(columns)), extra(extra), summary(summary) {}

  /// `key` is kernel, specialization, case; `cells` one per column;
  /// `detail` (may be empty) is printed under the table.
  void addRow(std::vector<std::string> key, std::vector<std::string> cells,
              std::string detail);
  void print(llvm::raw_ostream &os) const;

private:
  struct Row {
    std::vector<std::string> key, cells;
    std::string detail;
  };
  std::vector<std::string> columns;
  unsigned extra = 0;
  Summary summary = Summary::Cells;
  std::vector<Row> rows;
};

} // namespace kcc::difftest

#endif
