// probe::npy without numpy: exact header bytes, round trips of every dtype and layout,
// hand-made files (byte orders, fortran order, versions), corrupt and hostile files.
#include <doctest/doctest.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <probe/formats/npy.hpp>

#include <complex>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
void spit(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A file with the given header text (padded like numpy does) and raw data bytes.
std::string make_npy(const std::string& dict, const std::string& data, int major = 1) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string text = dict;
  while ((prefix + text.size() + 1) % 64) text += ' ';
  text += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t b = 0; b < prefix - 8; ++b) out += static_cast<char>((text.size() >> (8 * b)) & 0xff);
  return out + text + data;
}

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
template <class T>
std::string big_endian_bytes(const std::vector<T>& v) {
  std::string s = bytes_of(v);
  for (size_t i = 0; i < s.size(); i += sizeof(T))
    for (size_t a = 0, b = sizeof(T) - 1; a < b; ++a, --b) std::swap(s[i + a], s[i + b]);
  return s;
}

std::string tensor_bytes(const probe::tensor& t) {
  return std::string(static_cast<const char*>(t.data()), t.nbytes());
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, "..")) names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

// Writes v, reads it back, and checks dtype, shape and bytes against `expected` (C order).
void round_trip(const std::string& path, const probe::tensor_view& v, const std::string& expected) {
  std::string err;
  REQUIRE_MESSAGE(probe::npy::write(path, v, &err), err);
  const std::string file = slurp(path);
  REQUIRE(file.size() >= 64);
  const size_t text_len = static_cast<unsigned char>(file[8]) | static_cast<unsigned char>(file[9]) << 8;
  CHECK((10 + text_len) % 64 == 0);
  CHECK(file.size() == 10 + text_len + expected.size());
  const probe::tensor t = probe::npy::read(path, &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(t.type() == v.type);
  CHECK(t.ndim() == v.ndim);
  for (int i = 0; i < v.ndim; ++i) CHECK(t.shape(i) == v.shape[i]);
  CHECK(tensor_bytes(t) == expected);
}

}  // namespace

TEST_CASE("npy: header bytes are numpy's") {
  const int64_t shape[] = {3, 4};
  const std::string h = probe::npy::header(probe::dtype::float32, shape, 2);
  REQUIRE(h.size() == 128);
  CHECK(h.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  CHECK(static_cast<unsigned char>(h[8]) == 118);
  CHECK(h[9] == 0);
  CHECK(h.substr(10).find("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }") == 0);
  CHECK(h.back() == '\n');
  const int64_t one[] = {7};
  CHECK(probe::npy::header(probe::dtype::boolean, one, 1).find("'descr': '|b1'") != std::string::npos);
  CHECK(probe::npy::header(probe::dtype::int64, one, 1).find("'shape': (7,)") != std::string::npos);
  CHECK(probe::npy::header(probe::dtype::complex128, nullptr, 0).find("'descr': '<c16'") != std::string::npos);
  CHECK(probe::npy::header(probe::dtype::complex128, nullptr, 0).find("'shape': ()") != std::string::npos);
  CHECK(probe::npy::header(probe::dtype::bfloat16, one, 1).find("'descr': [('bfloat16', '<u2')]") != std::string::npos);
  CHECK(probe::npy::header(probe::dtype::invalid, one, 1).empty());
  const int64_t eight[] = {1000000000000, 2, 3, 4, 5, 6, 7, 8};
  CHECK(probe::npy::header(probe::dtype::uint16, eight, 8).size() % 64 == 0);
}

TEST_CASE("npy: every dtype round-trips, contiguous and strided") {
  probe_test::temp_dir dir;
  std::mt19937_64 rng(9);
  auto fill_bytes = [&](size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
  };
  for (int t = 1; t < probe::dtype_count; ++t) {
    const auto type = static_cast<probe::dtype>(t);
    const size_t item = probe::dtype_size(type);
    INFO(probe::dtype_name(type));
    std::string data = fill_bytes(24 * item);
    if (type == probe::dtype::boolean)
      for (auto& c : data) c = static_cast<char>(c & 1);
    round_trip(dir / "c.npy", probe::view_raw(data.data(), type, {2, 3, 4}), data);
    // Transposed: element (i, j) of the 4x6 view is element (j, i) of the 6x4 storage.
    std::string transposed;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) transposed += data.substr(static_cast<size_t>(j * 4 + i) * item, item);
    round_trip(dir / "t.npy", probe::view_raw(data.data(), type, {4, 6}, {1, 4}), transposed);
    // Every other element, backwards.
    std::string reversed;
    for (int i = 23; i >= 0; i -= 2) reversed += data.substr(static_cast<size_t>(i) * item, item);
    round_trip(dir / "r.npy", probe::view_raw(data.data() + 23 * item, type, {12}, {-2}), reversed);
    round_trip(dir / "s.npy", probe::view_raw(data.data(), type, {}), data.substr(0, item));
    round_trip(dir / "e.npy", probe::view_raw(nullptr, type, {3, 0}), "");
  }
  // Strided with a dense inner run, and more rows than the gather buffer holds at once.
  std::vector<float> big(3 * 700000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i);
  std::string rows;
  for (int r = 0; r < 3; r += 2) rows += bytes_of(std::vector<float>(big.begin() + r * 700000, big.begin() + (r + 1) * 700000));
  round_trip(dir / "rows.npy", probe::view(big.data(), {2, 700000}, {1400000, 1}), rows);
  // Nothing but the final files is left in the directory.
  for (const std::string& name : list_dir(dir.path())) CHECK(name.find(".probe-tmp") == std::string::npos);
}

TEST_CASE("npy: write_fd writes header and data at the descriptor's position") {
  probe_test::temp_dir dir;
  const std::vector<int32_t> x = {1, 2, 3, 4, 5, 6};
  const int fd = ::open((dir / "fd.npy").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  std::string err;
  CHECK(probe::npy::write_fd(fd, probe::view(x.data(), {2, 3}), &err));
  ::close(fd);
  const probe::tensor t = probe::npy::read(dir / "fd.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(tensor_bytes(t) == bytes_of(x));
  CHECK_FALSE(probe::npy::write_fd(-1, probe::view(x.data(), {2, 3}), &err));
  CHECK(err.find("write failed") != std::string::npos);
}

TEST_CASE("npy: write errors name the file and leave nothing behind") {
  probe_test::temp_dir dir;
  float x[4] = {};
  std::string err;
  CHECK_FALSE(probe::npy::write(dir / "missing/x.npy", probe::view(x, 4), &err));
  CHECK(err.find(dir / "missing/x.npy") != std::string::npos);
  CHECK_FALSE(probe::npy::write(dir / "d.npy", probe::view(x, 4).on_cuda(), &err));
  CHECK(err.find("device memory") != std::string::npos);
  CHECK_FALSE(probe::npy::write(dir / "i.npy", probe::view(x, {1, 1, 1, 1, 1, 1, 1, 1, 1}), &err));
  CHECK(err.find("invalid view") != std::string::npos);
  CHECK_FALSE(probe::npy::write(dir / "n.npy", probe::view_raw(nullptr, probe::dtype::float32, {2}), &err));
  // Putting the file over a directory fails after the data was written: nothing is left.
  REQUIRE(::mkdir((dir / "taken.npy").c_str(), 0755) == 0);
  CHECK_FALSE(probe::npy::write(dir / "taken.npy", probe::view(x, 4), &err));
  CHECK(err.find("taken.npy: ") != std::string::npos);
  CHECK(list_dir(dir.path()).size() == 1);
  // An existing file is replaced whole.
  spit(dir / "old.npy", "previous contents");
  CHECK(probe::npy::write(dir / "old.npy", probe::view(x, 4), &err));
  CHECK(probe::npy::read(dir / "old.npy").numel() == 4);
}

TEST_CASE("npy: big-endian, fortran order and every header version") {
  probe_test::temp_dir dir;
  std::string err;
  const std::vector<int32_t> v = {1, -2, 3, -4, 5, -6};
  spit(dir / "be.npy", make_npy("{'descr': '>i4', 'fortran_order': False, 'shape': (2, 3), }", big_endian_bytes(v)));
  probe::tensor t = probe::npy::read(dir / "be.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(tensor_bytes(t) == bytes_of(v));

  // Column-major 2x3: memory holds (0,0) (1,0) (0,1) (1,1) (0,2) (1,2).
  const std::vector<double> col = {1, 4, 2, 5, 3, 6}, row = {1, 2, 3, 4, 5, 6};
  spit(dir / "f.npy", make_npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", bytes_of(col)));
  t = probe::npy::read(dir / "f.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(t.shape(0) == 2);
  CHECK(t.shape(1) == 3);
  CHECK(tensor_bytes(t) == bytes_of(row));

  // Both at once, complex (each component swapped on its own), 3-d.
  std::vector<std::complex<float>> cm(24), cr(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        const std::complex<float> z(static_cast<float>(i * 100 + j * 10 + k), static_cast<float>(-k));
        cm[static_cast<size_t>(i + 2 * j + 6 * k)] = z;
        cr[static_cast<size_t>(i * 12 + j * 4 + k)] = z;
      }
  std::string be = bytes_of(cm);
  for (size_t i = 0; i < be.size(); i += 4) {
    std::swap(be[i], be[i + 3]);
    std::swap(be[i + 1], be[i + 2]);
  }
  spit(dir / "fbe.npy", make_npy("{'descr': '>c8', 'fortran_order': True, 'shape': (2, 3, 4), }", be));
  t = probe::npy::read(dir / "fbe.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(t.type() == probe::dtype::complex64);
  CHECK(tensor_bytes(t) == bytes_of(cr));

  // Versions 2 and 3, double quotes, Python 2 longs, reordered keys, no trailing comma.
  const std::vector<uint16_t> h = {0x3c00, 0xc000, 0x7c00};
  spit(dir / "v2.npy", make_npy("{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"<f2\"}", bytes_of(h), 2));
  t = probe::npy::read(dir / "v2.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(t.type() == probe::dtype::float16);
  CHECK(tensor_bytes(t) == bytes_of(h));
  spit(dir / "v3.npy", make_npy("{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", "\x05\x06", 3));
  t = probe::npy::read(dir / "v3.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(tensor_bytes(t) == "\x05\x06");

  // bfloat16 as probe writes it, also big-endian.
  spit(dir / "bf.npy", make_npy("{'descr': [('bfloat16', '>u2')], 'fortran_order': False, 'shape': (3,), }",
                                big_endian_bytes(std::vector<uint16_t>{0x3f80, 0x4000, 0xff80})));
  t = probe::npy::read(dir / "bf.npy", &err);
  REQUIRE_MESSAGE(!t.empty(), err);
  CHECK(t.type() == probe::dtype::bfloat16);
  CHECK(tensor_bytes(t) == bytes_of(std::vector<uint16_t>{0x3f80, 0x4000, 0xff80}));

  probe::npy::header_info info;
  REQUIRE(probe::npy::read_header(dir / "fbe.npy", &info, &err));
  CHECK(info.type == probe::dtype::complex64);
  CHECK(info.fortran_order);
  CHECK(info.ndim == 3);
  CHECK(info.data_offset == 128);
  CHECK(info.data_bytes == 24 * 8);
}

TEST_CASE("npy: corrupt, truncated and hostile files give one clear error") {
  probe_test::temp_dir dir;
  const std::string good = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", std::string(16, '\0'));
  struct bad_case {
    const char* name;
    std::string bytes;
    const char* says;
  };
  std::string huge_len = good;
  huge_len[8] = '\xff';
  huge_len[9] = '\xff';
  std::string v2_huge = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", "", 2);
  v2_huge[10] = '\x7f';
  v2_huge[11] = '\x7f';
  std::string deep = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': ";
  for (int i = 0; i < 5000; ++i) deep += "[";
  const bad_case cases[] = {
      {"empty.npy", "", "empty file"},
      {"magic.npy", "PK\x03\x04 this is a zip file, not an array", "not an .npy file"},
      {"short.npy", std::string("\x93NUMP", 5), "truncated"},
      {"version.npy", std::string("\x93NUMPY\x09\x00\x10\x00", 10) + "{}", "unsupported .npy version 9"},
      {"huge_len.npy", huge_len, "runs past the end"},
      {"v2_huge.npy", v2_huge, "exceeds"},
      {"cut_header.npy", good.substr(0, 40), "runs past the end"},
      {"cut_data.npy", good.substr(0, good.size() - 1), "truncated: the header promises 16 bytes"},
      {"no_dict.npy", make_npy("'descr'", ""), "expected '{'"},
      {"unterminated.npy", make_npy("{'descr': '<f4", ""), "unterminated string"},
      {"no_shape.npy", make_npy("{'descr': '<f4', 'fortran_order': False}", ""), "no 'shape'"},
      {"no_descr.npy", make_npy("{'fortran_order': False, 'shape': ()}", ""), "no 'descr'"},
      {"object.npy", make_npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", ""), "unsupported dtype '|O'"},
      {"unicode.npy", make_npy("{'descr': '<U8', 'fortran_order': False, 'shape': (2,), }", ""), "unsupported dtype"},
      {"struct.npy", make_npy("{'descr': [('a', '<f4'), ('b', '<i4')], 'fortran_order': False, 'shape': (2,), }", ""),
       "unsupported structured dtype"},
      {"negative.npy", make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", ""), "negative dimension"},
      {"overflow.npy", make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""),
       "shape too large"},
      // numpy refuses these (ValueError): a zero dimension does not excuse the others' product.
      {"zero_dim_overflow.npy",
       make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904, 0), }", ""),
       "shape too large"},
      {"zero_dim_bytes.npy",
       make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2305843009213693952), }", ""),
       "shape too large"},
      {"bigint.npy", make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", ""),
       "integer too large"},
      {"lies.npy", make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", "12345678"),
       "promises 8000000000000 bytes"},
      {"nine_dims.npy", make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", "1234"),
       "more than 8 dimensions"},
      {"order.npy", make_npy("{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,), }", "1234"), "True or False"},
      {"deep.npy", make_npy(deep, ""), "nested too deeply"},
      {"garbage.npy", make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } junk", "1234"),
       "unexpected text after"},
      {"binary.npy", make_npy(std::string("{'descr': \x01\x02", 13), ""), "expected a quoted string"},
  };
  for (const bad_case& c : cases) {
    INFO(c.name);
    spit(dir / c.name, c.bytes);
    std::string err;
    const probe::tensor t = probe::npy::read(dir / c.name, &err);
    CHECK(t.empty());
    CHECK_MESSAGE(err.find(dir / c.name) == 0, err);
    CHECK_MESSAGE(err.find(c.says) != std::string::npos, err);
  }
  std::string err;
  CHECK(probe::npy::read(dir / "does_not_exist.npy", &err).empty());
  CHECK(err.find("cannot open") != std::string::npos);
  CHECK(probe::npy::read(dir.path(), &err).empty());
  CHECK(err.find("not a regular file") != std::string::npos);
  CHECK_FALSE(probe::npy::read_header(dir / "lies.npy", nullptr, &err));
  // Without an error string the failure is still just an empty tensor.
  CHECK(probe::npy::read(dir / "lies.npy").empty());
}

TEST_CASE("npy: random damage to a valid file never crashes the reader") {
  probe_test::temp_dir dir;
  std::vector<double> x(10);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i);
  REQUIRE(probe::npy::write(dir / "ok.npy", probe::view(x.data(), {2, 5})));
  const std::string good = slurp(dir / "ok.npy");
  std::mt19937_64 rng(12);
  int read_ok = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string bad = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % 74;  // the header and the first data bytes
      const char pool[] = "0123456789(),:'\"[]{} -TrueFalse<>|fiucb\x00\xff";
      bad[at] = rng() % 3 ? pool[rng() % (sizeof pool - 1)] : static_cast<char>(rng());
    }
    if (rng() % 5 == 0) bad.resize(rng() % bad.size());
    spit(dir / "bad.npy", bad);
    std::string err;
    const probe::tensor t = probe::npy::read(dir / "bad.npy", &err);
    if (t.empty()) {
      CHECK(!err.empty());
    } else {
      ++read_ok;
      CHECK(t.nbytes() <= bad.size());  // never more data than the file holds
    }
  }
  CHECK(read_ok > 0);
}

TEST_CASE("npy: a FIFO named like a data file is refused at once, not waited on") {
  probe_test::temp_dir dir;
  const std::string fifo = dir / "planted.npy";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string err;
  probe::npy::header_info info;
  CHECK_FALSE(probe::npy::read_header(fifo, &info, &err));  // would block in open() before
  CHECK(err.find("not a regular file") != std::string::npos);
  CHECK(probe::npy::read(fifo, &err).empty());
}

TEST_CASE("npy: read_nofollow refuses a link at the file's name, read follows it") {
  probe_test::temp_dir dir;
  const std::string target = dir / "target.npy", link = dir / "planted.npy";
  const float x[3] = {1, 2, 3};
  REQUIRE(probe::npy::write(target, probe::view(x, {3})));
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  std::string err;
  CHECK(probe::npy::read_nofollow(link, &err).empty());
  CHECK(err.find("a symbolic link where a data file belongs; not followed") != std::string::npos);
  const probe::tensor t = probe::npy::read(link, &err);
  REQUIRE_FALSE(t.empty());
  CHECK(t.data_as<float>()[2] == 3.0f);
  CHECK(probe::npy::read_nofollow(target, &err).numel() == 3);
}
