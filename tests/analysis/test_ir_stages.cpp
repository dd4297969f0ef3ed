// probe diff-ir's module lookup (tools/analysis/ir_stages.hpp): by id, file prefix or name.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/ir_stages.hpp"

namespace pa = probe::analysis;

TEST_CASE("ir: a module by id, by module_N, by name; an id wins over a module named by that number") {
  std::vector<pa::ir_module_dump> mods(4);
  mods[0].id = 1, mods[0].name = "mlp.L0";
  mods[1].id = 2, mods[1].name = "mlp.L1";
  mods[2].id = 3, mods[2].name = "1";  // an engine that names modules by number
  mods[3].id = 4, mods[3].name = "mlp.L1";
  std::string error;
  CHECK(pa::find_ir_module(mods, "1", &error) == &mods[0]);
  CHECK(pa::find_ir_module(mods, "module_0003", &error) == &mods[2]);
  CHECK(pa::find_ir_module(mods, "3", &error) == &mods[2]);
  CHECK(pa::find_ir_module(mods, "mlp.L0", &error) == &mods[0]);
  CHECK(pa::find_ir_module(mods, "mlp.L1", &error) == nullptr);
  CHECK(error.find("several modules are called 'mlp.L1'") != std::string::npos);
  CHECK(pa::find_ir_module(mods, "9", &error) == nullptr);
  CHECK(error.find("no module '9'") != std::string::npos);
}
