// Compiled kernels, kept across processes under the caller's cache key.
#include "internal.hpp"

#include <climits>

namespace histtune::db {

void Database::put_cubin(const std::string& cache_key, int arch, const std::string& nvrtc_version,
                         const std::string& template_hash, const std::string& label,
                         const std::vector<char>& image) {
  if (image.size() > static_cast<std::size_t>(INT_MAX)) {
    throw detail::make_error("put_cubin", path_, "image of " + std::to_string(image.size()) +
                                                     " bytes is larger than SQLite binds");
  }
  write("put_cubin", [&](SQLite::Database& db) {
    SQLite::Statement put(db,
                          "INSERT OR REPLACE INTO cubins (cache_key, arch, nvrtc_version,"
                          "  template_hash, label, image)"
                          " VALUES (:cache_key, :arch, :nvrtc_version, :template_hash, :label,"
                          "  :image)");
    put.bind(":cache_key", cache_key);
    put.bind(":arch", arch);
    put.bind(":nvrtc_version", nvrtc_version);
    put.bind(":template_hash", template_hash);
    put.bind(":label", label);
    // A null pointer would bind NULL, not an empty blob.
    static const char kEmpty = 0;
    put.bind(":image", image.empty() ? static_cast<const void*>(&kEmpty) : image.data(),
             static_cast<int>(image.size()));
    put.exec();
  });
}

std::optional<std::vector<char>> Database::get_cubin(const std::string& cache_key) const {
  return read("get_cubin", [&](SQLite::Database& db) -> std::optional<std::vector<char>> {
    SQLite::Statement q(db, "SELECT image FROM cubins WHERE cache_key = :cache_key");
    q.bind(":cache_key", cache_key);
    if (!q.executeStep()) {
      return std::nullopt;
    }
    const SQLite::Column image = q.getColumn(0);
    const char* bytes = static_cast<const char*>(image.getBlob());
    return std::vector<char>(bytes, bytes + image.getBytes());
  });
}

}  // namespace histtune::db
