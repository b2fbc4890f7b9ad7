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
  explicit Table(std::vector<std::string> columns)
      : columns(std::move(columns)) {}

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
  std::vector<Row> rows;
};

} // namespace kcc::difftest

#endif
