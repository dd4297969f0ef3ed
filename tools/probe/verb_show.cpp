// probe show: a .npy file, a dump's manifest, or a snapshot, as text.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include <probe/probe.hpp>
#include <probe/core/format_tensor.hpp>
#include <probe/formats/json.hpp>
#include <probe/effects/breakpoint_expr.hpp>

#include "analysis/compare_inputs.hpp"
#include "analysis/dump_manifest.hpp"
#include "analysis/nonfinite.hpp"
#include "analysis/npy_file.hpp"
#include "analysis/npy_values.hpp"
#include "analysis/trace_ranks.hpp"

#include "ir_report.hpp"
#include "options.hpp"
#include "terminal_text.hpp"
#include "verbs.hpp"

namespace probe_cli {
namespace {

const option_spec k_options[] = {
    flag("--health", "dump folders: the first op whose output holds NaN/Inf (as probe compare --nonfinite)"),
    integer("--step", "N", "dump folders: only the tensors of step N"),
    flag("--full", "print every value; without it, numpy's summary past 1000 elements"),
    flag("--passes", "dump folders: the engine's modules and, per pass, whether it changed the IR, and its line count"),
};

int bad_input(const std::string& message) {
  print_error("show", message);
  return 2;
}

// Every report of show is plain text: printed with each line made printable.
void print_report(const std::string& text) { fputs(terminal_lines(text).c_str(), stdout); }

namespace pa = probe::analysis;

std::string num(double v) {
  char b[32];
  snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string health_line(const probe::health& h) {
  std::string s = std::to_string(h.count) + " values";
  if (probe::dtype_is_float(h.type) || probe::dtype_is_complex(h.type))
    s += ", nan " + std::to_string(h.nan) + ", +inf " + std::to_string(h.pos_inf) + ", -inf " + std::to_string(h.neg_inf);
  s += ", zero " + std::to_string(h.zero);
  if (h.subnormal) s += ", subnormal " + std::to_string(h.subnormal);
  if (h.finite) s += "; min " + num(h.min) + " max " + num(h.max) + " mean " + num(h.mean) + " std " + num(h.std);
  return s;
}

std::string short_stats(const pa::dump_tensor& t) {
  if (!t.have_stats) return t.note.empty() ? "(no stats)" : "(" + t.note + ")";
  const probe::health& h = t.stats;
  std::string s = h.finite ? "min " + num(h.min) + " max " + num(h.max) + " mean " + num(h.mean) + " std " + num(h.std)
                           : std::string("no finite value");
  if (h.nonfinite()) s += "  NaN " + std::to_string(h.nan) + " +Inf " + std::to_string(h.pos_inf) + " -Inf " + std::to_string(h.neg_inf);
  return s;
}

// Header, values and health of one .npy file; false with *error. Reads only the values it
// prints, and the rest block by block for the health.
bool show_npy(const std::string& path, bool full, const std::string& indent, std::string* out, std::string* error,
              pa::links at_last) {
  pa::npy_file file;
  if (!file.open(path, error, at_last)) return false;
  const probe::npy::header_info& h = file.header();
  *out += indent + path + ": " + probe::dtype_name(h.type) + pa::shape_string(h.shape, h.ndim) + ", " +
          (h.fortran_order ? "Fortran order" : "C order") + (h.swap_bytes ? ", byte-swapped" : "") + ", npy " +
          std::to_string(h.major) + "." + std::to_string(h.minor) + ", " + std::to_string(h.data_bytes) +
          " bytes of data at offset " + std::to_string(h.data_offset) + "\n";
  probe::detail::tensor_format f;
  if (full) f.threshold = INT64_MAX;
  std::string values;
  if (!pa::format_npy_values(file, f, &values, error)) return false;
  probe::health health;
  if (!file.health_of_all(&health, error)) return false;
  std::string shifted = indent;
  for (char c : values) {
    shifted += c;
    if (c == '\n') shifted += indent;
  }
  *out += shifted + "\n" + indent + "health: " + health_line(health) + "\n";
  return true;
}

// Part of a .npy file, indexed as at the breakpoint prompt ("[126, 2, :]", "[0][::2]"). Reads
// only the selected elements (the selection is held in memory: at most 256 MiB).
bool show_npy_slice(const std::string& path, const std::string& index, bool full, std::string* out, std::string* error) {
  pa::npy_file file;
  if (!file.open(path, error, pa::links::follow)) return false;  // named, or in a folder of .npy
  const probe::npy::header_info& h = file.header();
  probe::tensor_view v;  // the file's layout, no memory: indexing only computes where things are
  v.type = h.type;
  v.ndim = static_cast<int8_t>(h.ndim);
  for (int64_t k = 0, stride = 1; k < h.ndim; ++k) {
    const int d = h.fortran_order ? static_cast<int>(k) : h.ndim - 1 - static_cast<int>(k);
    v.shape[d] = h.shape[d];
    v.strides[d] = stride;
    stride *= h.shape[d] > 0 ? h.shape[d] : 1;
  }
  int64_t first = 0;
  std::string why;
  if (!probe::detail::bp_expr::apply_index_text(v, index, &why, &first)) {
    *error = "index '" + index + "': " + why;
    return false;
  }
  const size_t item = probe::dtype_size(h.type);
  const int64_t n = v.numel();
  if (static_cast<uint64_t>(n) * item > (uint64_t{256} << 20)) {
    *error = "index '" + index + "' selects " + std::to_string(n) + " elements; show prints at most 256 MiB at once";
    return false;
  }
  std::vector<uint64_t> storage(static_cast<size_t>(n) * item / 8 + 2);
  char* dst = reinterpret_cast<char*>(storage.data());
  if (n > 0) {
    // Row by row along the last axis: one read per row when it is contiguous in the file.
    const int last = v.ndim - 1;
    const int64_t row = last >= 0 ? v.shape[last] : 1, step = last >= 0 ? v.strides[last] : 1;
    int64_t at[probe::max_dims] = {};
    for (int64_t done = 0; done < n; done += row) {
      int64_t offset = first;
      for (int d = 0; d < last; ++d) offset += at[d] * v.strides[d];
      if (step == 1 || row == 1) {
        if (!file.read(offset, static_cast<size_t>(row), dst, error)) return false;
      } else {
        for (int64_t j = 0; j < row; ++j)
          if (!file.read(offset + j * step, 1, dst + j * static_cast<int64_t>(item), error)) return false;
      }
      dst += row * static_cast<int64_t>(item);
      for (int d = last - 1; d >= 0; --d) {
        if (++at[d] < v.shape[d]) break;
        at[d] = 0;
      }
    }
  }
  const probe::tensor_view sel = probe::view_raw(storage.data(), h.type, probe::dims(v.shape, static_cast<size_t>(v.ndim)));
  probe::detail::tensor_format f;
  if (full) f.threshold = INT64_MAX;
  std::string values;
  probe::detail::format_tensor(values, sel, f);
  *out += path + index + ": " + probe::dtype_name(h.type) + pa::shape_string(sel.shape, sel.ndim) + " of " +
          probe::dtype_name(h.type) + pa::shape_string(h.shape, h.ndim) + "\n" + values + "\nhealth: " +
          health_line(probe::compute_health(sel)) + "\n";
  return true;
}

int show_manifest(const std::string& dir, const pa::compare_settings& s, bool health) {
  if (health) {
    const pa::nonfinite_report r = pa::find_first_nonfinite(dir, s.has_step, s.step);
    if (!r.error.empty()) return bad_input(r.error);
    print_report(pa::nonfinite_text(r));
    return r.exit_code();  // as probe compare --nonfinite: 1 when NaN/Inf is found
  }
  std::vector<pa::dump_run> runs;
  std::string error;
  if (!pa::read_dump(dir, &runs, &error)) return bad_input(error);
  std::string out;
  for (const pa::dump_run& run : runs) {
    size_t width = 8, shown = 0;
    for (const pa::dump_tensor& t : run.tensors) width = std::max(width, probe::detail::printable(t.key).size());
    width = std::min<size_t>(width, 48);
    out += "dump " + probe::detail::printable(run.dir) + ": " + std::to_string(run.tensors.size()) + " tensor records" +
           (run.has_end ? ", run complete" : "") + "\n";
    for (const std::string& n : run.notes) out += "note: " + probe::detail::printable(n) + "\n";
    std::vector<const pa::dump_tensor*> order;
    for (const pa::dump_tensor& t : run.tensors)
      if (!s.has_step || t.step == s.step) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](const pa::dump_tensor* a, const pa::dump_tensor* b) {
      return a->seq != b->seq ? a->seq < b->seq : a->is_input && !b->is_input;
    });
    size_t next_attrs = 0;  // attrs records in seq order, shown before their op's first tensor
    std::vector<const pa::dump_attrs*> attrs;
    for (const pa::dump_attrs& a : run.attrs) attrs.push_back(&a);
    std::stable_sort(attrs.begin(), attrs.end(), [](const pa::dump_attrs* a, const pa::dump_attrs* b) { return a->seq < b->seq; });
    for (const pa::dump_tensor* t : order) {
      for (; next_attrs < attrs.size() && attrs[next_attrs]->seq <= t->seq; ++next_attrs)
        if (attrs[next_attrs]->seq == t->seq)
          out += std::string(8, ' ') + probe::detail::printable(attrs[next_attrs]->key) + " attrs: " +
                 pa::attrs_text(attrs[next_attrs]->attrs) + "\n";
      char seq[24];
      snprintf(seq, sizeof seq, "%6llu", static_cast<unsigned long long>(t->seq));
      std::string key = probe::detail::printable(t->key);
      if (key.size() < width) key += std::string(width - key.size(), ' ');
      std::string type = t->dtype_text + pa::shape_string(t->shape, t->ndim);
      if (type.size() < 22) type += std::string(22 - type.size(), ' ');
      out += std::string(seq) + "  " + key + "  " + type + "  " + short_stats(*t) + "\n";
      ++shown;
    }
    if (s.has_step) out += std::to_string(shown) + " records of step " + std::to_string(s.step) + "\n";
  }
  print_report(out);
  return 0;
}

// The engine IR of a dump (probe::ir_module): modules and their passes.
int show_passes(const std::string& dir) {
  std::string out, error;
  size_t modules = 0;
  for (const std::string& run : ir_run_dirs(dir)) {
    std::vector<pa::ir_module_dump> mods;
    if (!pa::read_ir_stages(run, &mods, &error)) return bad_input(error);
    modules += mods.size();
    out += ir_passes_text(run, mods);
  }
  if (modules == 0) return bad_input(dir + ": no engine IR in this dump (an engine writes it with probe::ir_module and probe::ir_pass)");
  print_report(out);
  return 0;
}

int show_snapshot(const std::string& dir, bool full) {
  const std::string path = pa::join(dir, "snapshot.json");
  std::string text, error;
  if (!pa::read_regular_file(path, &text, &error, size_t{64} << 20)) return bad_input(error);
  probe::json::value doc;
  if (!probe::json::parse(text, doc, &error) || !doc.is_object()) return bad_input(path + ": " + (error.empty() ? "not a JSON object" : error));
  if (doc.get_string("format").compare(0, 15, "probe-snapshot-") != 0) return bad_input(path + ": not a probe snapshot");
  std::string out = "snapshot " + probe::detail::printable(dir) + ": op " + probe::detail::printable(doc.get_string("op")) + " [" +
                    probe::detail::printable(doc.get_string("type")) + "] seq " +
                    std::to_string(doc.get_int("seq")) + " step " + std::to_string(doc.get_int("step")) + " #" +
                    std::to_string(doc.get_int("occurrence")) + ", status " + doc.get_string("status") +
                    (doc.find("module") ? ", compiled in module " + std::to_string(doc.get_int("module")) +
                                              " (probe show DIR --passes)"
                                        : std::string()) +
                    "\n";
  if (doc.get("attrs").size()) out += "attrs " + pa::attrs_text(doc.get("attrs")) + "\n";
  for (const char* side : {"inputs", "outputs"}) {
    const probe::json::value& list = doc.get(side);
    for (size_t i = 0; i < list.size(); ++i) {
      const probe::json::value& t = list[i];
      out += std::string(side[0] == 'i' ? "in  " : "out ") + probe::detail::printable(t.get_string("slot")) + " (" +
             probe::detail::printable(t.get_string("key")) + ")";
      const probe::json::value* producer = t.find("producer");
      if (producer) out += producer->is_string() ? " from " + probe::detail::printable(producer->as_string()) : std::string(" (graph input)");
      out += "\n";
      const std::string file = t.get_string("file");
      if (file.empty() && t.get("implicit").is_bool() && !t.get_string("prior").empty()) {
        // An implicit input recorded after its kernel: its prior state lies in its producers' files.
        const probe::json::value& pieces = t.get("pieces");
        out += "    (prior state: " + std::string(pieces.size() ? "what its producers recorded:" : "unknown");
        for (size_t k = 0; k < pieces.size(); ++k)
          out += " " + probe::detail::printable(pieces[k].get_string("key")) + " bytes " +
                 std::to_string(pieces[k].get_int("offset")) + "+" + std::to_string(pieces[k].get_int("bytes"));
        out += ")\n";
        continue;
      }
      if (file.empty() || file.find('/') != std::string::npos) return bad_input(path + ": bad file name for " + t.get_string("slot"));
      if (!show_npy(pa::join(dir, file), full, "    ", &out, &error, pa::links::refuse)) return bad_input(error);
    }
  }
  print_report(out);
  return 0;
}

// A timing trace (--probe_trace_to): its rows per process (an MPI job's ranks) and across them.
int show_trace(const std::string& path, const std::string& text) {
  pa::trace_ranks t;
  std::string error;
  if (!pa::read_trace_ranks(text, &t, &error)) return bad_input(path + ": " + error);
  print_report(pa::trace_ranks_text(t));
  return 0;
}

int show_npy_folder(const std::string& dir) {
  std::vector<std::string> files;
  std::string out, error;
  if (!pa::compare_inputs::find_npy(dir, &files, &error)) return bad_input(error);
  if (files.empty()) return bad_input(dir + ": no manifest.jsonl, snapshot.json or .npy file in it");
  for (const std::string& rel : files) {
    pa::npy_file file;
    probe::health health;
    // A folder of .npy files is the user's: its links are followed, as compare does.
    if (!file.open(pa::join(dir, rel), &error, pa::links::follow) || !file.health_of_all(&health, &error))
      return bad_input(error);
    const probe::npy::header_info& h = file.header();
    out += rel + "  " + probe::dtype_name(h.type) + pa::shape_string(h.shape, h.ndim) + "  " + health_line(health) + "\n";
  }
  print_report(out);
  return 0;
}

}  // namespace

const command_spec show_command = {
    "show",
    "print a .npy file, a dump's manifest or a snapshot as text",
    "probe show [options] PATH [INDEX]",
    "Prints what probe wrote, as text:\n"
    "  a .npy file          its header, its values (numpy's print style) and health stats;\n"
    "                       with INDEX ('[126, 2, :]', '[0][::2]': integers and slices, as at\n"
    "                       the breakpoint prompt) only that part: its shape, values, health\n"
    "  a dump folder        one line per recorded tensor: sequence number, key, dtype, shape,\n"
    "  (or manifest.jsonl)  stats (rank folders one after the other)\n"
    "  a snapshot folder    the op and each of its inputs and outputs, values included\n"
    "  (or snapshot.json)\n"
    "  a folder of .npy     one line per file\n"
    "  a dump folder with   the engine's modules and their passes in pipeline order: changed\n"
    "  --passes             or unchanged, line count, file (probe diff-ir diffs two of them)\n"
    "  a trace (.json)      each row's total time and calls per process (an MPI job's ranks),\n"
    "                       and its minimum, median and maximum over them\n",
    k_options,
    sizeof k_options / sizeof k_options[0],
    "exit: 0, 1 (--health) NaN/Inf found, 2 bad input",
    2,
    "",
    operand_kind::words,
};

int run_show(int argc, char** argv) {
  parsed_options args;
  int exit_code = 0;
  if (!read_command_line(show_command, argc, argv, &args, &exit_code)) return exit_code;

  pa::compare_settings s;
  std::string error;
  const std::vector<std::string>& inputs = args.operands();
  const bool health = args.given("--health"), full = args.given("--full");
  long long step = 0;
  if (args.get("--step", &step)) {
    s.step = step;
    s.has_step = true;
  }
  if (inputs.size() != 1 && inputs.size() != 2) return usage_error(show_command, "needs one PATH, and an INDEX for a .npy file; see --help");
  std::string path = inputs[0];
  if (inputs.size() == 2) {
    if (!pa::is_file(path)) return bad_input(pa::is_dir(path) ? path + ": an INDEX needs a .npy file" : pa::path_problem(path));
    std::string out;
    if (!show_npy_slice(path, inputs[1], full, &out, &error)) return bad_input(error);
    print_report(out);
    return 0;
  }
  auto ends_with = [&](const char* tail) { return pa::compare_inputs::ends_with(path, tail); };
  if (pa::is_file(path) && (ends_with("/manifest.jsonl") || path == "manifest.jsonl" || ends_with("/snapshot.json") ||
                            path == "snapshot.json")) {
    const size_t slash = path.rfind('/');
    path = slash == std::string::npos ? "." : path.substr(0, slash);
  }
  if (pa::is_file(path) && ends_with(".json")) {
    std::string text;
    constexpr size_t most = size_t{1} << 30;
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) > most)
      return bad_input(path + ": " + std::to_string(static_cast<long long>(st.st_size)) +
                       " bytes; probe show reads a trace of at most 1 GiB (about 7 M events): "
                       "--probe_trace_max_events=N keeps a trace under it, and the run's --probe_timing_summary "
                       "counts every event");
    if (!pa::read_regular_file(path, &text, &error, most, pa::links::follow)) return bad_input(error);
    if (pa::looks_like_trace(text)) return show_trace(path, text);
  }
  if (pa::is_file(path)) {
    if (health) return bad_input(path + ": --health needs a dump folder (with manifest.jsonl)");
    std::string out;
    if (!show_npy(path, full, "", &out, &error, pa::links::follow)) return bad_input(error);  // the user named it
    print_report(out);
    return 0;
  }
  if (!pa::is_dir(path)) return bad_input(pa::path_problem(path));
  if (pa::is_file(pa::join(path, "snapshot.json"))) return show_snapshot(path, full);
  if (args.given("--passes")) {
    if (!pa::has_manifest(path)) return bad_input(path + ": --passes needs a dump folder (with manifest.jsonl)");
    return show_passes(path);
  }
  if (pa::has_manifest(path)) return show_manifest(path, s, health);
  if (health) return bad_input(path + ": --health needs a dump folder (with manifest.jsonl)");
  return show_npy_folder(path);
}

}  // namespace probe_cli
