#include "readers/storage/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include <sluice/error.h>

namespace sluice {

namespace {

std::string Hex(const unsigned char* d, size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = hex[d[i] >> 4];
    s[2 * i + 1] = hex[d[i] & 15];
  }
  return s;
}

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), out, &len))
    throw Error("HMAC-SHA256 failed");
  return std::string(reinterpret_cast<char*>(out), len);
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), d);
  return Hex(d, sizeof d);
}

std::string SigV4Authorization(const SigV4Key& key, std::string_view method, std::string_view canonical_uri,
                               std::string_view canonical_query,
                               std::vector<std::pair<std::string, std::string>> headers,
                               std::string_view payload_sha256, std::string_view amz_date) {
  for (auto& [name, value] : headers) {
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    while (!value.empty() && value.back() == ' ') value.pop_back();
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());
  }
  std::sort(headers.begin(), headers.end());
  std::string canonical_headers, signed_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name + ":" + value + "\n";
    signed_headers += (signed_headers.empty() ? "" : ";") + name;
  }
  std::string creq;
  creq.append(method).append("\n").append(canonical_uri).append("\n").append(canonical_query).append("\n");
  creq += canonical_headers + "\n" + signed_headers + "\n";
  creq.append(payload_sha256);
  const std::string date(amz_date.substr(0, 8));
  const std::string scope = date + "/" + key.region + "/" + key.service + "/aws4_request";
  const std::string to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + scope + "\n" + Sha256Hex(creq);
  std::string k = Hmac("AWS4" + key.secret_key, date);
  k = Hmac(k, key.region);
  k = Hmac(k, key.service);
  k = Hmac(k, "aws4_request");
  const std::string sig = Hmac(k, to_sign);
  return "AWS4-HMAC-SHA256 Credential=" + key.access_key + "/" + scope + ", SignedHeaders=" + signed_headers +
         ", Signature=" + Hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size());
}

std::string AmzDateNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace sluice
