// Data-flow per byte range: which op output last wrote each byte, per device. An input is
// linked to every output whose bytes it reads (a KV cache read by attention has one writer per
// earlier position). Internal header.
#pragma once
#include <stdint.h>

#include <string>
#include <vector>

#include "byte_grid.hpp"
#include "producer_cells.hpp"
#include "view_runs.hpp"

PROBE_BEGIN_NAMESPACE
namespace detail {

// Ranges are disjoint and kept sorted by (device, start) in one vector: lookups are binary
// searches, and the number of live outputs is small. A strided view is its runs of contiguous
// bytes, not the span from its first to its last: workers writing interleaved rows of one
// buffer each own their rows, and a reader of some rows meets only their writers. A range may
// be a grid: equally spaced rows (heads of [T, H, D], workers' rows) as rectangles.
class producer_map {
 public:
  // A range some output wrote, as seen from a reader's range.
  struct piece {
    std::string key;
    uint64_t seq = 0;
    int64_t step = 0;          // the writer's step
    uintptr_t lo = 0, hi = 0;  // the part inside the reader's range: its first byte, one past its last
    uint64_t bytes = 0;        // how many bytes: hi - lo, unless the part is rows (below)
    uintptr_t period = 0;      // > 0: the part is rows of `width` bytes, `period` apart, from lo
    uintptr_t width = 0;
    bool whole = false;        // the writer's whole range lies inside the reader's
    bool hashed = false;       // `hash` is what the writer left in [lo, hi) (whole ranges only)
    uint64_t hash = 0;
    bool read = false;         // an op has read some of these bytes since they were written
    uintptr_t origin = 0;      // where the writer's whole output starts: lo - origin is the piece's
                               // byte offset in that output
  };

  // A view of more runs than this is taken as its span (the map stays small and a record
  // cheap: a record costs a range per run), unless its runs are equally spaced: those are
  // one rectangle of a grid, whatever their number (few of them: when their span allows,
  // few_rows_as_grid).
  static constexpr size_t k_most_runs = 32;
  // A grid of more rectangles than this is given whole to its latest writer.
  static constexpr size_t k_most_cells = 4096;

  explicit producer_map(size_t most_runs = k_most_runs) : most_runs_(most_runs) {}

  // v's bytes were written by output `key` of op `seq`; `hash` (when `hashed`) is the content
  // hash of its whole byte range as written (a contiguous view's).
  void record(const tensor_view& v, const std::string& key, uint64_t seq, bool hashed = false, uint64_t hash = 0,
              int64_t step = 0) {
    stripes st;
    if (!view_runs(v, &runs_, &st, most_runs_)) return;
    // A hash covers the whole view: it describes a range only when the view is one run.
    writer w{device_key(v), &key, seq, hashed && runs_.size() == 1 && st.rows == 0, hash, step, runs_.front().lo};
    if (st.rows > 0 && (static_cast<size_t>(st.rows) > most_runs_ || few_rows_as_grid(w.dev, st))) {
      record_stripes(w, st);
      return;
    }
    if (st.rows > 0) rows_to_runs(st, &runs_);
    if (live_grids() == 0 || paint_runs_into_grids(&w)) record_runs(w);
  }

  // Every recorded range overlapping v's bytes, in address order of their first bytes (a
  // strided reader's: those its runs overlap, cut to them). A grid's parts are rows: ranges
  // whose first bytes are in order, not their bytes.
  std::vector<piece> find(const tensor_view& v) {
    std::vector<piece> out;
    visit(v, &out);
    return out;
  }

  // An op read v's bytes: their writers' outputs were consumed.
  void mark_read(const tensor_view& v) { visit(v, nullptr); }

  bool empty() const noexcept { return ranges_.empty(); }
  void clear() {
    ranges_.clear();
    grids_.clear();
    free_grids_.clear();
  }
  size_t ranges() const noexcept { return ranges_.size(); }
  // Rectangles held by grids (a test's view of how far a map fragments).
  size_t cells() const noexcept {
    size_t n = 0;
    for (const entry& e : ranges_)
      if (e.grid_at >= 0) n += grids_[static_cast<size_t>(e.grid_at)].cells.size();
    return n;
  }

 private:
  using written = producer_written;
  using cell = producer_cell;
  // A range of the map: bytes [lo, hi) one output wrote, or (grid_at >= 0) a grid whose
  // rectangles several outputs wrote (workers' or heads' interleaved rows).
  struct entry {
    int dev;
    uintptr_t lo, hi;
    int32_t grid_at;  // >= 0: its index in grids_
    written by;
  };
  struct grid {
    byte_grid shape;
    std::vector<cell> cells;  // disjoint
  };
  // What a record writes into each of its runs.
  struct writer {
    int dev;
    const std::string* key;
    uint64_t seq;
    bool hashed;
    uint64_t hash;
    int64_t step;
    uintptr_t origin;
    written as_written(bool hash_kept) const { return written{*key, seq, hashed && hash_kept, hash, step, false, origin}; }
  };

  // Grids. A view of equally spaced runs is one or two rectangles of a grid of
  // its period; a grid holds every range in its span, as rectangles of their writers, so that
  // workers' or heads' interleaved rows each keep their own.

  int32_t new_grid(const byte_grid& g) {
    int32_t at;
    if (!free_grids_.empty()) {
      at = free_grids_.back();
      free_grids_.pop_back();
    } else {
      at = static_cast<int32_t>(grids_.size());
      grids_.emplace_back();
    }
    grids_[static_cast<size_t>(at)].shape = g;
    grids_[static_cast<size_t>(at)].cells.clear();
    return at;
  }
  void free_grid(int32_t at) {
    grids_[static_cast<size_t>(at)].cells.clear();
    free_grids_.push_back(at);
  }

  // w wrote the n rectangles rs of o's grid: what they cover of other cells gives way. False
  // when the grid has grown past k_most_cells: a record costs a pass over its cells, so
  // the caller gives the whole grid to w, as a span.
  bool paint(grid& o, const grid_rect* rs, size_t n, const writer& w) {
    const bool hash_kept = n == 1 && o.shape.contiguous(rs[0]);
    if (n == 1)
      for (cell& c : o.cells)
        if (c.r == rs[0]) {  // the same rows again (the next step's head): rewritten where they lie
          assign(&c.by, w, hash_kept);
          return true;
        }
    cells_.clear();
    for (cell& c : o.cells) {
      grid_rect x;
      bool met = false;
      for (size_t q = 0; q < n && !met; ++q) met = intersect(c.r, rs[q], &x);
      if (!met) {
        cells_.push_back(std::move(c));
        continue;
      }
      left_.assign(1, c.r);
      for (size_t q = 0; q < n; ++q) {
        next_.clear();
        for (const grid_rect& l : left_) {
          grid_rect out[4];
          const int m = subtract(l, rs[q], out);
          next_.insert(next_.end(), out, out + m);
        }
        left_.swap(next_);
      }
      for (const grid_rect& l : left_) {
        cells_.push_back(cell{l, c.by});
        cells_.back().by.hashed = false;
      }
    }
    for (size_t q = 0; q < n; ++q) cells_.push_back(cell{rs[q], w.as_written(hash_kept)});
    sort_cells(&cells_, &o.cells);  // in order of first bytes: readers meet them in address order
    o.cells.swap(cells_);
    return o.cells.size() <= k_most_cells;
  }
  // Grid e, grown too fine, becomes a plain range of w's.
  void give_whole(entry& e, const writer& w) {
    free_grid(e.grid_at);
    e.grid_at = -1;
    e.by = w.as_written(false);
  }

  // Runs (not equally spaced, or few) over grids: their bytes in a grid are painted there,
  // and runs_ keep the rest for the plain path (false: nothing left). A grid a run covers
  // whole is left to the plain path, which replaces it.
  bool paint_runs_into_grids(writer* w) {
    size_t i, end;
    window(w->dev, runs_.front().lo, runs_.back().hi, &i, &end);
    bool met_any = false;
    for (size_t k = i; k < end; ++k) {
      entry& e = ranges_[k];
      if (e.grid_at < 0) continue;
      bool covered = false;
      rects_.clear();
      for (const byte_span& r : runs_) {
        if (r.lo <= e.lo && e.hi <= r.hi) covered = true;
        if (r.hi <= e.lo || e.hi <= r.lo || covered) continue;
        grid_rect rs[3];
        const int n = grids_[static_cast<size_t>(e.grid_at)].shape.contiguous(r.lo > e.lo ? r.lo : e.lo, r.hi < e.hi ? r.hi : e.hi, rs);
        rects_.insert(rects_.end(), rs, rs + n);
      }
      if (covered) {
        free_grid(e.grid_at);
        e.grid_at = -1;
        continue;
      }
      if (rects_.empty()) continue;
      writer inside = *w;
      inside.hashed = w->hashed && e.lo <= runs_.front().lo && runs_.back().hi <= e.hi;
      if (!paint(grids_[static_cast<size_t>(e.grid_at)], rects_.data(), rects_.size(), inside)) give_whole(e, *w);
      met_any = true;
    }
    if (!met_any) return true;
    cut_.clear();
    for (const byte_span& r : runs_) {
      uintptr_t at = r.lo;
      for (size_t k = i; k < end && at < r.hi; ++k) {
        const entry& e = ranges_[k];
        if (e.grid_at < 0 || e.hi <= at || e.lo >= r.hi) continue;
        if (e.lo > at) cut_.push_back(byte_span{at, e.lo});
        at = e.hi;
      }
      if (at < r.hi) cut_.push_back(byte_span{at, r.hi});
    }
    runs_.swap(cut_);
    w->hashed = false;  // the hash is the whole view's
    return !runs_.empty();
  }

  // Equally spaced runs: the ranges and grids they meet become one grid of
  // their period (plain ranges cut at its ends), in which they are painted.
  void record_stripes(const writer& w, const stripes& st) {
    const uintptr_t p = st.period;
    uintptr_t lo = st.lo, hi = st.lo + static_cast<uintptr_t>(st.rows - 1) * p + st.width;
    size_t i, end;
    window(w.dev, lo, hi, &i, &end);
    grid_rect rs[2];
    if (end == i + 1 && ranges_[i].grid_at >= 0 && ranges_[i].lo <= lo && hi <= ranges_[i].hi &&
        grids_[static_cast<size_t>(ranges_[i].grid_at)].shape.period == p) {
      grid& o = grids_[static_cast<size_t>(ranges_[i].grid_at)];
      if (!paint(o, rs, static_cast<size_t>(o.shape.runs(st.lo, st.width, st.rows, rs)), w)) give_whole(ranges_[i], w);
      return;
    }
    for (bool grew = true; grew;) {  // grids met are taken in whole
      grew = false;
      for (size_t k = i; k < end; ++k) {
        const entry& e = ranges_[k];
        if (e.grid_at < 0) continue;
        if (e.lo < lo) lo = e.lo, grew = true;
        if (e.hi > hi) hi = e.hi, grew = true;
      }
      if (grew) window(w.dev, lo, hi, &i, &end);
    }
    if (too_fine(i, end, p)) {  // the span, as a plain range of w's: bounded, if imprecise
      merged_.clear();
      if (ranges_[i].grid_at < 0 && ranges_[i].lo < lo) merged_.push_back(trimmed(ranges_[i], ranges_[i].lo, lo));
      merged_.push_back(entry{w.dev, lo, hi, -1, w.as_written(false)});
      if (ranges_[end - 1].grid_at < 0 && ranges_[end - 1].hi > hi) merged_.push_back(trimmed(ranges_[end - 1], hi, ranges_[end - 1].hi));
      for (size_t k = i; k < end; ++k)
        if (ranges_[k].grid_at >= 0) free_grid(ranges_[k].grid_at);
      replace_window(i, end);
      return;
    }
    byte_grid g{st.lo, p};
    for (size_t k = i; k < end; ++k)
      if (ranges_[k].grid_at >= 0 && grids_[static_cast<size_t>(ranges_[k].grid_at)].shape.period == p) {
        g.origin = grids_[static_cast<size_t>(ranges_[k].grid_at)].shape.origin;  // its cells stay as they are
        break;
      }
    building_.clear();
    merged_.clear();
    bool tail = false;
    entry after{};
    for (size_t k = i; k < end; ++k) {
      entry& e = ranges_[k];
      if (e.grid_at < 0) {
        if (e.lo < lo) merged_.push_back(trimmed(e, e.lo, lo));
        if (e.hi > hi) tail = true, after = trimmed(e, hi, e.hi);
        const uintptr_t x = e.lo > lo ? e.lo : lo, y = e.hi < hi ? e.hi : hi;
        add_range(g, x, y, e.by, e.by.hashed && x == e.lo && y == e.hi);
        continue;
      }
      grid& o = grids_[static_cast<size_t>(e.grid_at)];
      for (const cell& c : o.cells) {
        if (o.shape.period == p) {
          const int n = g.runs(o.shape.first_byte(c.r), c.r.b - c.r.a, c.r.k1 - c.r.k0, rs);
          for (int q = 0; q < n; ++q) {
            building_.push_back(cell{rs[q], c.by});
            building_.back().by.hashed = c.by.hashed && n == 1;
          }
        } else {  // another period: its rows one by one
          for (int64_t row = c.r.k0; row < c.r.k1; ++row) {
            const uintptr_t x = o.shape.origin + static_cast<uintptr_t>(row) * o.shape.period + c.r.a;
            add_range(g, x, x + (c.r.b - c.r.a), c.by, c.by.hashed && c.r.k1 - c.r.k0 == 1);
          }
        }
      }
      free_grid(e.grid_at);
    }
    const int32_t at = new_grid(g);
    grid& o = grids_[static_cast<size_t>(at)];
    o.cells.swap(building_);
    merged_.push_back(entry{w.dev, lo, hi, at, written()});
    if (!paint(o, rs, static_cast<size_t>(g.runs(st.lo, st.width, st.rows, rs)), w)) give_whole(merged_.back(), w);
    if (tail) merged_.push_back(std::move(after));
    replace_window(i, end);
  }
  // Whether the span of few equally spaced runs holds no more ranges than they have rows: a
  // reader then meets them once, as rows, rather than once per run.
  bool few_entries(int dev, const stripes& st) const noexcept {
    size_t i, end;
    return window_within(dev, st, &i, &end);
  }
  // Few equally spaced runs are a grid's rectangle too (one cell instead of a range per run)
  // when that does not fragment the map more than their ranges would: no more ranges (grids
  // included) in their span than rows, and no grid of another period (it goes row by row).
  bool few_rows_as_grid(int dev, const stripes& st) const noexcept {
    size_t i, end;
    if (!window_within(dev, st, &i, &end)) return false;
    for (size_t k = i; k < end; ++k) {
      const int32_t at = ranges_[k].grid_at;
      if (at >= 0 && grids_[static_cast<size_t>(at)].shape.period != st.period) return false;
    }
    return true;
  }
  // The window of rows' span, false when it holds more ranges than rows (not walked past that).
  bool window_within(int dev, const stripes& st, size_t* i, size_t* end) const noexcept {
    const uintptr_t lo = st.lo, hi = st.lo + static_cast<uintptr_t>(st.rows - 1) * st.period + st.width;
    *i = first_not_before(dev, lo);
    if (*i > 0 && ranges_[*i - 1].dev == dev && ranges_[*i - 1].hi > lo) --*i;
    const size_t most = *i + static_cast<size_t>(st.rows);
    for (*end = *i; *end < ranges_.size() && ranges_[*end].dev == dev && ranges_[*end].lo < hi; ++*end)
      if (*end == most) return false;
    return true;
  }
  // Whether the ranges [i, end) would make more than k_most_cells cells of a grid of period p.
  bool too_fine(size_t i, size_t end, uintptr_t p) const noexcept {
    uint64_t n = 0;
    for (size_t k = i; k < end && n <= k_most_cells; ++k) {
      const entry& e = ranges_[k];
      if (e.grid_at < 0) {
        n += 3;
        continue;
      }
      const grid& o = grids_[static_cast<size_t>(e.grid_at)];
      if (o.shape.period == p) {
        n += 2 * o.cells.size();
        continue;
      }
      for (const cell& c : o.cells) n += 3 * static_cast<uint64_t>(c.r.k1 - c.r.k0);
    }
    return n > k_most_cells;
  }
  // Bytes [x, y) that `by` wrote, as cells of grid g under construction.
  void add_range(const byte_grid& g, uintptr_t x, uintptr_t y, const written& by, bool hash_kept) {
    grid_rect rs[3];
    const int n = g.contiguous(x, y, rs);
    for (int q = 0; q < n; ++q) {
      building_.push_back(cell{rs[q], by});
      building_.back().by.hashed = hash_kept && n == 1;
    }
  }

  // Each part of a recorded range that v's bytes overlap: into *out, or (out null) marked read.
  void visit(const tensor_view& v, std::vector<piece>* out) {
    stripes st;
    if (!view_runs(v, &runs_, &st, most_runs_)) return;
    const int dev = device_key(v);
    if (st.rows > 0 && static_cast<size_t>(st.rows) <= most_runs_ && !few_entries(dev, st)) {
      rows_to_runs(st, &runs_);  // met run by run
      st = stripes();
    }
    const byte_grid own{st.lo, st.rows > 0 ? st.period : 1};
    grid_rect rows[2];
    const int n_rows = st.rows > 0 ? own.runs(st.lo, st.width, st.rows, rows) : 0;
    bool as_rows = false;  // some parts are rows: put in order below
    for (const byte_span& r : runs_) {
      size_t i, end;
      window(dev, r.lo, r.hi, &i, &end);
      for (size_t k = i; k < end; ++k) {
        entry& e = ranges_[k];
        const uintptr_t x = e.lo > r.lo ? e.lo : r.lo, y = e.hi < r.hi ? e.hi : r.hi;
        if (e.grid_at < 0 && n_rows == 0) {
          emit(e.by, part{x, y, y - x, 0, 0, e.lo >= r.lo && e.hi <= r.hi}, out);
          continue;
        }
        as_rows = true;
        if (e.grid_at < 0) {  // a plain range under equally spaced runs: the rows they cover of it
          grid_rect mine[3];
          const int n = own.contiguous(x, y, mine);
          report(own, mine, n, rows, n_rows, e.by, part{e.lo, e.hi, e.hi - e.lo, 0, 0, true}, out);
          continue;
        }
        grid& o = grids_[static_cast<size_t>(e.grid_at)];
        grid_rect in[3];  // v's bytes in o's grid
        if (n_rows == 0 || st.period == o.shape.period) {
          report_cells(o, in, n_rows > 0 ? o.shape.runs(st.lo, st.width, st.rows, in) : o.shape.contiguous(x, y, in), out);
          continue;
        }
        for (int64_t row = 0; row < st.rows; ++row) {  // runs of another period: row by row
          const uintptr_t a = st.lo + static_cast<uintptr_t>(row) * st.period, b = a + st.width;
          if (b > e.lo && a < e.hi) report_cells(o, in, o.shape.contiguous(a > e.lo ? a : e.lo, b < e.hi ? b : e.hi, in), out);
        }
      }
    }
    if (as_rows && out) sort_by_first_byte(out);
  }
  // Where a part lies: [lo, hi), or rows of `width` bytes `period` apart from lo (period > 0).
  struct part {
    uintptr_t lo, hi;
    uint64_t bytes;
    uintptr_t period, width;
    bool whole;
  };
  static void emit(written& by, const part& where, std::vector<piece>* out) {
    if (!out) {
      by.read = true;
      return;
    }
    piece p;
    p.key = by.key;
    p.seq = by.seq;
    p.step = by.step;
    p.lo = where.lo;
    p.hi = where.hi;
    p.bytes = where.bytes;
    p.period = where.period;
    p.width = where.width;
    p.whole = where.whole;
    p.hashed = where.whole && by.hashed;
    p.hash = by.hash;
    p.read = by.read;
    p.origin = by.origin;
    out->push_back(std::move(p));
  }
  static part whole_cell(const byte_grid& g, const grid_rect& r) {
    const bool flat = g.contiguous(r);
    return part{g.first_byte(r), g.end_byte(r), r.bytes(), flat ? 0 : g.period, flat ? 0 : r.b - r.a, true};
  }
  static void report_cells(grid& o, const grid_rect* in, int n_in, std::vector<piece>* out) {
    for (cell& c : o.cells) report(o.shape, &c.r, 1, in, n_in, c.by, whole_cell(o.shape, c.r), out);
  }
  // The parts of a writer's rectangles `mine` that the reader's `in` overlap, in grid g: the
  // writer's `whole` range when they cover all its bytes.
  static void report(const byte_grid& g, const grid_rect* mine, int n_mine, const grid_rect* in, int n_in, written& by,
                     const part& whole, std::vector<piece>* out) {
    grid_rect parts[9];
    int n = 0;
    uint64_t total = 0;
    for (int a = 0; a < n_mine; ++a)
      for (int b = 0; b < n_in; ++b)
        if (intersect(mine[a], in[b], &parts[n])) total += parts[n++].bytes();
    if (n == 0) return;
    if (total == whole.bytes) {
      emit(by, whole, out);
      return;
    }
    for (int q = 0; q < n; ++q) {
      part p = whole_cell(g, parts[q]);
      p.whole = false;
      emit(by, p, out);
    }
  }
  // Pieces of grids come in their cells' order: nearly sorted, so an insertion sort.
  static void sort_by_first_byte(std::vector<piece>* out) {
    for (size_t k = 1; k < out->size(); ++k) {
      if ((*out)[k - 1].lo <= (*out)[k].lo) continue;
      piece x = std::move((*out)[k]);
      size_t at = k;
      for (; at > 0 && (*out)[at - 1].lo > x.lo; --at) (*out)[at] = std::move((*out)[at - 1]);
      (*out)[at] = std::move(x);
    }
  }

  size_t live_grids() const noexcept { return grids_.size() - free_grids_.size(); }

  // The plain path: runs_ replace what they overwrite; ranges in their gaps keep their writer.
  void record_runs(const writer& w) {
    if (rewrite_in_place(w)) return;
    const uintptr_t first = runs_.front().lo, end_of_all = runs_.back().hi;
    size_t i = first_not_before(w.dev, first);
    if (i > 0 && ranges_[i - 1].dev == w.dev && ranges_[i - 1].hi > first) --i;
    size_t end = i;
    while (end < ranges_.size() && ranges_[end].dev == w.dev && ranges_[end].lo < end_of_all) ++end;
    merged_.clear();
    size_t next_run = 0;  // the first run not yet placed
    size_t first_over = 0;  // the first run ending after the range at hand starts
    for (size_t k = i; k < end; ++k) {
      const entry& e = ranges_[k];
      while (first_over < runs_.size() && runs_[first_over].hi <= e.lo) ++first_over;
      if (first_over == runs_.size() || runs_[first_over].lo >= e.hi) {  // in a gap: kept whole, moved
        for (; next_run < runs_.size() && runs_[next_run].lo < e.lo; ++next_run) merged_.push_back(fresh(w, runs_[next_run]));
        merged_.push_back(std::move(ranges_[k]));
        continue;
      }
      uintptr_t at = e.lo;
      for (size_t q = first_over; q < runs_.size() && runs_[q].lo < e.hi; ++q) {
        if (runs_[q].lo > at) keep_piece(e, at, runs_[q].lo, w, &next_run);
        if (runs_[q].hi > at) at = runs_[q].hi;
      }
      if (at < e.hi) keep_piece(e, at, e.hi, w, &next_run);
    }
    for (; next_run < runs_.size(); ++next_run) merged_.push_back(fresh(w, runs_[next_run]));
    replace_window(i, end);
  }
  // ranges_[i, end) become merged_: one erase or one insert, whatever the number of runs. The
  // room is made first, so that running out of memory leaves the map as it was.
  void replace_window(size_t i, size_t end) {
    if (merged_.size() > end - i) {
      const size_t need = ranges_.size() + (merged_.size() - (end - i));
      if (need > ranges_.capacity()) ranges_.reserve(need > 2 * ranges_.capacity() ? need : 2 * ranges_.capacity());
    }
    const size_t common = end - i < merged_.size() ? end - i : merged_.size();
    for (size_t k = 0; k < common; ++k) ranges_[i + k] = std::move(merged_[k]);
    if (merged_.size() > common) {
      ranges_.insert(ranges_.begin() + static_cast<ptrdiff_t>(i + common), merged_.size() - common, entry());
      for (size_t k = common; k < merged_.size(); ++k) ranges_[i + k] = std::move(merged_[k]);
    } else {
      ranges_.erase(ranges_.begin() + static_cast<ptrdiff_t>(i + common), ranges_.begin() + static_cast<ptrdiff_t>(end));
    }
  }
  // Whether each run is exactly a recorded plain range (a loop's op writing the same rows
  // again): then each is reassigned where it lies, and no range moves.
  bool rewrite_in_place(const writer& w) {
    found_.clear();
    for (const byte_span& r : runs_) {
      const size_t at = first_not_before(w.dev, r.lo);
      if (at == ranges_.size() || ranges_[at].dev != w.dev || ranges_[at].lo != r.lo || ranges_[at].hi != r.hi ||
          ranges_[at].grid_at >= 0)
        return false;
      found_.push_back(at);
    }
    for (size_t at : found_) assign(&ranges_[at].by, w, true);
    return true;
  }
  static void assign(written* by, const writer& w, bool hash_kept) {
    by->key.assign(*w.key);  // the same length as last time: no allocation
    by->seq = w.seq;
    by->hashed = w.hashed && hash_kept;
    by->hash = w.hash;
    by->step = w.step;
    by->read = false;
    by->origin = w.origin;
  }
  static entry fresh(const writer& w, const byte_span& r) { return entry{w.dev, r.lo, r.hi, -1, w.as_written(true)}; }
  // Keeps [lo, hi) of an earlier plain range e, after placing the new runs that start before it.
  void keep_piece(const entry& e, uintptr_t lo, uintptr_t hi, const writer& w, size_t* next_run) {
    for (; *next_run < runs_.size() && runs_[*next_run].lo < lo; ++*next_run) merged_.push_back(fresh(w, runs_[*next_run]));
    merged_.push_back(trimmed(e, lo, hi));
  }
  // [lo, hi) of plain range e: a trimmed piece's hash no longer describes it, it is not
  // checked any more.
  static entry trimmed(const entry& e, uintptr_t lo, uintptr_t hi) {
    entry t{e.dev, lo, hi, -1, e.by};
    t.by.hashed = e.by.hashed && lo == e.lo && hi == e.hi;
    return t;
  }
  // Index of the first range at or after (dev, lo).
  size_t first_not_before(int dev, uintptr_t lo) const noexcept {
    size_t a = 0, b = ranges_.size();
    while (a < b) {
      const size_t m = (a + b) / 2;
      const entry& e = ranges_[m];
      if (e.dev < dev || (e.dev == dev && e.lo < lo)) a = m + 1; else b = m;
    }
    return a;
  }
  // The window of ranges overlapping [lo, hi) on dev: [*i, *end).
  void window(int dev, uintptr_t lo, uintptr_t hi, size_t* i, size_t* end) const noexcept {
    *i = first_not_before(dev, lo);
    if (*i > 0 && ranges_[*i - 1].dev == dev && ranges_[*i - 1].hi > lo) --*i;
    *end = *i;
    while (*end < ranges_.size() && ranges_[*end].dev == dev && ranges_[*end].lo < hi) ++*end;
  }
  static int device_key(const tensor_view& v) { return v.where.kind == device::host ? -1 : v.where.index; }

  size_t most_runs_;
  std::vector<entry> ranges_;
  std::vector<grid> grids_;
  std::vector<int32_t> free_grids_;  // slots of grids_ no range uses
  std::vector<byte_span> runs_;      // scratch: the view at hand's runs
  std::vector<entry> merged_;   // scratch: a record's new window
  std::vector<size_t> found_;   // scratch: the ranges a record rewrites in place
  std::vector<cell> cells_;     // scratch: a grid's rectangles as a record leaves them
  std::vector<cell> building_;  // scratch: a new grid's rectangles
  std::vector<grid_rect> rects_, left_, next_;  // scratch: rectangles painted, and what is left of one
  std::vector<byte_span> cut_;       // scratch: runs outside the grids they met
};

}  // namespace detail
PROBE_END_NAMESPACE
