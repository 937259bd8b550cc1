// S3's ListObjectsV2 answer (XML), parsed without an XML library: the document is machine-written
// and only <Contents><Key>/<Size>, <IsTruncated> and <NextContinuationToken> are needed. Untrusted
// input (whatever answers on the endpoint): fuzzed by fuzz/fuzz_s3_list.cc.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

struct S3Object {
  std::string key;
  int64_t size = 0;
};

struct S3ListPage {
  std::vector<S3Object> objects;
  bool truncated = false;
  std::string next_token;
};

// Throws sluice::Error (naming `what`) if the document is not a ListBucketResult or an element is
// malformed (unterminated, a bad size, a bad character reference).
S3ListPage ParseListObjectsV2(std::string_view xml, const std::string& what);

// XML text with its five named entities and numeric character references (&#NN; &#xHH;) decoded
// to UTF-8; throws sluice::Error on an unknown or malformed reference.
std::string XmlUnescape(std::string_view s);

}  // namespace sluice
