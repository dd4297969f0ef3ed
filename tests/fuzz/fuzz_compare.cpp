// probe compare on two fuzzed inputs. The first byte picks what they are: two .npy files
// (the rest split at the first "\n--\n" into A and B), or two dump folders whose manifests
// are the two parts, over the same small .npy files of several dtypes and shapes. The
// report is rendered as text, JSON and HTML.
#include <probe/probe.hpp>

#include <string>

#include <probe/formats/npy.hpp>

#include "analysis/compare_html.hpp"
#include "analysis/compare_json.hpp"
#include "analysis/compare_run.hpp"
#include "analysis/compare_text.hpp"
#include "fuzz_input.hpp"

namespace {

struct folders {
  std::string a, b, a_npy, b_npy;
  folders() {
    const std::string& dir = probe_fuzz::scratch_dir();
    a = dir + "/a";
    b = dir + "/b";
    a_npy = dir + "/a.npy";
    b_npy = dir + "/b.npy";
    const float f[6] = {1, 2, 3, 4, 5, 6};
    const double d[4] = {1, -1, 0.5, 1e300};
    const int32_t i[3] = {1, 2, 3};
    const int8_t c[2] = {-1, 1};
    for (const std::string& side : {a, b}) {
      if (mkdir(side.c_str(), 0700) != 0) abort();
      probe::npy::write(side + "/f.npy", probe::view(f, {2, 3}));
      probe::npy::write(side + "/d.npy", probe::view(d, {4}));
      probe::npy::write(side + "/i.npy", probe::view(i, {3}));
      probe::npy::write(side + "/c.npy", probe::view(c, {2}));
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pa = probe::analysis;
  static folders dirs;
  if (size == 0) return 0;
  const std::string_view text = probe_fuzz::as_text(data + 1, size - 1);
  const size_t cut = text.find("\n--\n");
  const std::string_view a = text.substr(0, cut), b = cut == std::string_view::npos ? a : text.substr(cut + 4);
  const bool dumps = data[0] & 1;
  probe_fuzz::write_file(dumps ? dirs.a + "/manifest.jsonl" : dirs.a_npy, a);
  probe_fuzz::write_file(dumps ? dirs.b + "/manifest.jsonl" : dirs.b_npy, b);
  pa::compare_settings s;
  s.threads = 1;
  if (data[0] & 2) s.check.mode = pa::check_mode::quantile;
  const pa::compare_report r = dumps ? pa::compare_paths(dirs.a, dirs.b, s) : pa::compare_paths(dirs.a_npy, dirs.b_npy, s);
  if (r.exit_code() == 2 && r.error.empty()) __builtin_trap();
  volatile size_t sink = pa::compare_text(r).size() + pa::compare_json(r).size() + pa::compare_html(r).size();
  (void)sink;
  return 0;
}
