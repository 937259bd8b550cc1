// AWS Signature Version 4 for S3 requests (our code over OpenSSL's libcrypto SHA-256 and
// HMAC-SHA256; checked against AWS's published S3 example in tests/readers/storage_test.cc).
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice {

std::string Sha256Hex(std::string_view data);

struct SigV4Key {
  std::string access_key, secret_key, session_token, region, service = "s3";
};

// Signs a request. `canonical_uri` is the URI-encoded path ("/bucket/key"), `canonical_query`
// the sorted, encoded query ("list-type=2&prefix=a%2F") or "", `headers` the headers to sign
// (must include host; names any case), `payload_sha256` the body's hex SHA-256 (or
// "UNSIGNED-PAYLOAD"), amz_date "YYYYMMDDTHHMMSSZ". Returns the Authorization header's value.
std::string SigV4Authorization(const SigV4Key& key, std::string_view method, std::string_view canonical_uri,
                               std::string_view canonical_query,
                               std::vector<std::pair<std::string, std::string>> headers,
                               std::string_view payload_sha256, std::string_view amz_date);

// The current UTC time as SigV4's "YYYYMMDDTHHMMSSZ".
std::string AmzDateNow();

}  // namespace sluice
