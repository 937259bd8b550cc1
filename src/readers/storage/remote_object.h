// One object on a server: an S3 object (signed with SigV4 unless anonymous) or an HTTP(S) URL.
// Size (HEAD), ranged and whole reads and PUT, each with retries (retry.h), and S3 listings.
// Thread-safe: const methods only, each request on the calling thread's connection.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "readers/storage/aws_config.h"
#include "readers/storage/http_client.h"
#include "readers/storage/retry.h"
#include "readers/storage/s3_list.h"
#include "readers/storage/url.h"

namespace sluice {

class RemoteObject {
 public:
  // Throws sluice::Error for a malformed path or AWS configuration.
  RemoteObject(const std::string& path, StorageOptions opt);

  const std::string& path() const { return url_.url; }  // s3://bucket/key or the URL (may hold secrets)
  std::string display() const { return RedactUrl(url_.url); }
  const StorageOptions& options() const { return opt_; }

  int64_t Size() const;
  // Copies [offset, offset + len) into dst with one ranged GET.
  void ReadRange(int64_t offset, size_t len, void* dst) const;
  std::string ReadAll() const;
  void Put(const std::string& data) const;  // S3 only

  // The objects whose keys start with this object's key (S3 only), sorted by key.
  std::vector<S3Object> List() const;

 private:
  HttpRequest MakeRequest(const std::string& method, const std::vector<std::pair<std::string, std::string>>& query,
                          const std::string& range, const std::string& payload_sha256,
                          bool bucket_level = false) const;

  RemoteUrl url_;
  StorageOptions opt_;
  std::shared_ptr<const AwsConfig> aws_;  // S3 only
};

}  // namespace sluice
