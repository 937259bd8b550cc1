// Where S3 requests go and with which credentials, from the standard AWS places:
//   AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else the profile
//   (AWS_PROFILE, default "default") of ~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE); none:
//   unsigned (anonymous) requests, for public buckets.
//   AWS_REGION / AWS_DEFAULT_REGION, else the profile's region in ~/.aws/config (AWS_CONFIG_FILE),
//   else us-east-1.
//   AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL for S3-compatible servers (MinIO, SeaweedFS, GCS's
//   https://storage.googleapis.com with HMAC keys), else https://s3.<region>.amazonaws.com.
//   SLUICE_S3_ADDRESSING = "path" | "virtual": path-style (endpoint/bucket/key) is the default with
//   a custom endpoint, virtual-hosted (bucket.endpoint/key) with AWS's.
// The same profile's retry and timeout settings (max_attempts, retry_mode, connect_timeout,
// read_timeout, ca_bundle) are the storage options' (retry.h), through AwsProfileSettings.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "readers/storage/sigv4.h"

namespace sluice {

struct AwsConfig {
  SigV4Key key;           // access_key empty: anonymous
  std::string endpoint;   // "scheme://host[:port]", no trailing slash
  bool path_style = true;
  bool anonymous() const { return key.access_key.empty(); }
};

// Throws sluice::Error for an unreadable credentials file named by the environment or a malformed
// endpoint. Never puts a secret into a message.
AwsConfig LoadAwsConfig();

// LoadAwsConfig's result, reused while the environment variables it reads are unchanged (the
// files are read again only when one of them changes): readers.file fetches each file with its
// own request object, and reading ~/.aws per file would cost more than the request. Thread-safe.
std::shared_ptr<const AwsConfig> SharedAwsConfig();

// The settings of the profile (AWS_PROFILE, default "default") in the shared config file
// (AWS_CONFIG_FILE, else ~/.aws/config): its section's keys as written (max_attempts, retry_mode,
// connect_timeout, read_timeout, ca_bundle, region, ...); none when the file or the section is not
// there. The storage options (retry.h) read them.
struct AwsProfileSettings {
  std::string file;     // the config file's path (for messages)
  std::string profile;  // the profile's name
  std::map<std::string, std::string> values;
};
AwsProfileSettings LoadAwsProfileSettings();
// The same, reused while the variables it reads and the file's size and modification time are
// unchanged: every remote file opened asks. Thread-safe.
AwsProfileSettings SharedAwsProfileSettings();

}  // namespace sluice
