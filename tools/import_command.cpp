// `histtune import`: adds a JSON export (plain or gzip-compressed) to the database, all or
// nothing, and says what the runtime will make of what the database then holds. Needs no GPU.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#ifdef HISTTUNE_HAVE_ZLIB
#include <zlib.h>
#endif

#include "command.hpp"
#include "histtune/status.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "standing.hpp"

namespace histtune::cli {
namespace {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// The text of a gzip file (every member, as gzip -dc writes it). Throws Error(invalid_argument).
std::string gunzip(const std::string& bytes, const std::string& name) {
#ifdef HISTTUNE_HAVE_ZLIB
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)  // 16: gzip header and trailer
    throw Error(StatusCode::internal, "zlib inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string text;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END || z.avail_in > 0) {
    if (rc == Z_STREAM_END) inflateReset(&z);  // a further gzip member
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    text.append(buf, sizeof buf - z.avail_out);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
  }
  const std::string why = z.msg ? z.msg : "truncated";
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    throw Error(StatusCode::invalid_argument,
                "bad import file " + name + ": gzip data: " + why + " (nothing imported)");
  return text;
#else
  (void)bytes;
  throw Error(StatusCode::invalid_argument,
              "cannot read " + name + ": gzip-compressed, and this histtune was built without "
              "zlib: `gzip -dc " + name + " | histtune import -`");
#endif
}

// The file's JSON text: '-' is standard input; gzip is recognised by its magic bytes.
std::string read_import_file(const std::string& in_path) {
  std::stringstream bytes;
  if (in_path == "-") {
    bytes << std::cin.rdbuf();
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(in_path, ec))
      throw Error(StatusCode::invalid_argument, "cannot read " + in_path + ": it is a folder");
    std::ifstream in(in_path, std::ios::binary);
    if (!in)
      throw Error(StatusCode::invalid_argument,
                  "cannot read " + in_path + ": " + std::strerror(errno));
    bytes << in.rdbuf();
  }
  std::string text = bytes.str();
  if (is_gzip(text)) text = gunzip(text, in_path == "-" ? "(stdin)" : in_path);
  return text;
}

int run_import(const Common& c, const std::string& in_path) {
  const std::string text = read_import_file(in_path);
  // The file is tried on a scratch database first: its faults are then told apart from the
  // database's (exit 2, not 4), and the database is not even opened for a malformed file.
  try {
    db::Database scratch(":memory:");
    scratch.import_json(text);
  } catch (const db::DbError& e) {
    const std::string what = e.what();
    const auto at = what.find(" failed: ");
    throw Error(StatusCode::invalid_argument,
                "bad import file " + (in_path == "-" ? std::string("(stdin)") : in_path) + ": " +
                    (at == std::string::npos ? what : what.substr(at + 9)) +
                    " (nothing imported)");
  }
  auto database = open_db(c);
  const db::ImportSummary s = database->import_json(text);  // all or nothing
  nlohmann::json source = {{"file", in_path}};
  const std::string standing = database_standing(*database, source["standing"]);
  print_import_summary(c, "import", database->path(), s, source,
                       "imported into " + database->path(), "");
  if (!c.json) std::printf("%s", standing.c_str());
  return kOk;
}

void declare(CLI::App* app, Common& common, std::string& in_path) {
  add_common(app, common, kDb | kJson, {"print the summary as JSON"});
  app->add_option("file", in_path,
                  "the JSON file, plain or gzip-compressed (.json.gz); '-': standard input")
      ->type_name("FILE")
      ->required();
}

}  // namespace

Command import_command() {
  return {
      "import", "add a JSON export to the database",
      "The whole file is checked before the database is opened: a malformed one changes nothing\n"
      "and exits 2, naming the first problem (its JSON path and the rule). Measurements already\n"
      "stored are skipped; an imported winner replaces a stored one only if it is faster, a\n"
      "baseline only if it was measured later; an import that adds nothing writes nothing. Then,\n"
      "per device, how many stored winners the runtime will use, skip as stale (another kernel\n"
      "template) or use unverified (another driver, NVRTC or histtune), and why. Needs no GPU.",
      bind_values<std::string>(declare, run_import)};
}

}  // namespace histtune::cli
