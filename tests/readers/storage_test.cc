// The object-storage layer's pure parts: URLs, redaction, SigV4 (against AWS's published S3
// examples), ListObjectsV2 parsing, the retry policy. The network paths are tested against real
// servers (SeaweedFS, http.server) in python/tests/test_object_storage.py.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include <sluice/error.h>

#include "readers/storage/aws_config.h"
#include "readers/storage/retry.h"
#include "readers/storage/s3_list.h"
#include "readers/storage/sigv4.h"
#include "readers/storage/url.h"

namespace sluice {
namespace {

TEST(StorageUrl, SchemesAndParts) {
  EXPECT_FALSE(IsRemotePath("/data/a.tar"));
  EXPECT_FALSE(IsRemotePath("s3:/x"));
  EXPECT_TRUE(IsRemotePath("S3://b/k"));
  EXPECT_TRUE(IsRemotePath("https://h/x"));
  const RemoteUrl u = ParseRemoteUrl("s3://bucket/dir/a b.tar");
  EXPECT_EQ(u.scheme, UrlScheme::kS3);
  EXPECT_EQ(u.bucket, "bucket");
  EXPECT_EQ(u.key, "dir/a b.tar");
  EXPECT_EQ(ParseRemoteUrl("s3://bucket").key, "");
  EXPECT_THROW(ParseRemoteUrl("s3:///key"), Error);
  EXPECT_THROW(ParseRemoteUrl("http:///x"), Error);
}

TEST(StorageUrl, ParentAndJoin) {
  EXPECT_EQ(ParentOfPath("s3://b/x/list.txt"), "s3://b/x/");
  EXPECT_EQ(ParentOfPath("s3://b/list.txt"), "s3://b/");
  EXPECT_EQ(ParentOfPath("http://h:8/a/b"), "http://h:8/a/");
  EXPECT_EQ(ParentOfPath("list.txt"), "");
  EXPECT_EQ(ParentOfPath("/d/list.txt"), "/d/");
  EXPECT_EQ(JoinPath("s3://b/x/", "c/1.jpg"), "s3://b/x/c/1.jpg");
  EXPECT_EQ(JoinPath("/root", "s3://b/k"), "s3://b/k");  // a URL is absolute
}

TEST(StorageUrl, RedactsSecrets) {
  EXPECT_EQ(RedactUrl("https://user:pw@host/a"), "https://***@host/a");
  EXPECT_EQ(RedactUrl("https://h/a?X-Amz-Credential=AK%2F1&x=1&X-Amz-Signature=abc"),
            "https://h/a?X-Amz-Credential=***&x=1&X-Amz-Signature=***");
  EXPECT_EQ(RedactUrl("s3://b/k"), "s3://b/k");
}

TEST(StorageUrl, UriEncode) {
  EXPECT_EQ(UriEncode("a b/c~d*", true), "a%20b/c~d%2A");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("\xC3\xA9", false), "%C3%A9");
}

// AWS's "Example: GET Object" (S3 API reference, sig-v4-header-based-auth).
TEST(SigV4, AwsGetObjectExample) {
  SigV4Key key;
  key.access_key = "AKIAIOSFODNN7EXAMPLE";
  key.secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  key.region = "us-east-1";
  const std::string empty = Sha256Hex("");
  EXPECT_EQ(empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const std::string auth = SigV4Authorization(key, "GET", "/test.txt", "",
                                              {{"Host", "examplebucket.s3.amazonaws.com"},
                                               {"Range", "bytes=0-9"},
                                               {"x-amz-content-sha256", empty},
                                               {"x-amz-date", "20130524T000000Z"}},
                                              empty, "20130524T000000Z");
  EXPECT_EQ(auth,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

// AWS's "Example: GET Bucket (List Objects)".
TEST(SigV4, AwsListObjectsExample) {
  SigV4Key key;
  key.access_key = "AKIAIOSFODNN7EXAMPLE";
  key.secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  key.region = "us-east-1";
  const std::string empty = Sha256Hex("");
  const std::string auth = SigV4Authorization(
      key, "GET", "/", "max-keys=2&prefix=J",
      {{"host", "examplebucket.s3.amazonaws.com"}, {"x-amz-content-sha256", empty}, {"x-amz-date", "20130524T000000Z"}},
      empty, "20130524T000000Z");
  EXPECT_NE(auth.find("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"), std::string::npos)
      << auth;
}

TEST(S3List, ParsesPagesAndEntities) {
  const std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      "<Name>b</Name><Prefix>d/</Prefix><KeyCount>2</KeyCount><IsTruncated>true</IsTruncated>"
      "<Contents><Key>d/a&amp;b.tar</Key><Size>10240</Size></Contents>"
      "<Contents><Key>d/&#233;&#x4E2D;.idx</Key><LastModified>x</LastModified><Size>7</Size></Contents>"
      "<NextContinuationToken>tok&lt;1&gt;</NextContinuationToken></ListBucketResult>";
  const S3ListPage p = ParseListObjectsV2(xml, "s3://b");
  ASSERT_EQ(p.objects.size(), 2u);
  EXPECT_EQ(p.objects[0].key, "d/a&b.tar");
  EXPECT_EQ(p.objects[0].size, 10240);
  EXPECT_EQ(p.objects[1].key, "d/\xC3\xA9\xE4\xB8\xAD.idx");
  EXPECT_TRUE(p.truncated);
  EXPECT_EQ(p.next_token, "tok<1>");
}

TEST(S3List, RejectsMalformed) {
  EXPECT_THROW(ParseListObjectsV2("<Error><Code>AccessDenied</Code></Error>", "s3://b"), Error);
  EXPECT_THROW(ParseListObjectsV2("<ListBucketResult><Contents><Key>a</Key>", "s3://b"), Error);
  EXPECT_THROW(ParseListObjectsV2("<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents>", "s3://b"),
               Error);
  EXPECT_THROW(ParseListObjectsV2("<ListBucketResult><Contents><Key>a&#0;</Key></Contents>", "s3://b"), Error);
  EXPECT_THROW(ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>", "s3://b"),
               Error);
  EXPECT_THROW(XmlUnescape("&bogus;"), Error);
  EXPECT_EQ(ParseListObjectsV2("<ListBucketResult></ListBucketResult>", "s3://b").objects.size(), 0u);
}

TEST(StorageRetry, RetryableStatuses) {
  for (long s : {408L, 429L, 500L, 502L, 503L, 504L}) EXPECT_TRUE(IsRetryableStatus(s)) << s;
  for (long s : {200L, 206L, 400L, 403L, 404L, 416L}) EXPECT_FALSE(IsRetryableStatus(s)) << s;
}

TEST(StorageRetry, BackoffIsCappedFullJitter) {
  StorageOptions o;
  o.base_backoff_s = 0.1;
  o.max_backoff_s = 1.0;
  std::mt19937_64 rng(1);
  double max_seen[12] = {};
  for (int t = 0; t < 2000; ++t)
    for (int a = 1; a <= 11; ++a) max_seen[a] = std::max(max_seen[a], BackoffDelay(o, a, rng));
  EXPECT_LE(max_seen[1], 0.1);
  EXPECT_GT(max_seen[1], 0.09);
  EXPECT_LE(max_seen[3], 0.4);
  EXPECT_GT(max_seen[3], 0.35);
  EXPECT_LE(max_seen[11], 1.0);  // capped
  EXPECT_GT(max_seen[11], 0.9);
}

TEST(StorageRetry, EnvironmentOverrides) {
  setenv("SLUICE_STORAGE_ATTEMPTS", "3", 1);
  setenv("SLUICE_STORAGE_TIMEOUT", "2.5", 1);
  StorageOptions o = StorageOptionsFromEnv();
  EXPECT_EQ(o.attempts, 3);
  EXPECT_DOUBLE_EQ(o.timeout_s, 2.5);
  setenv("SLUICE_STORAGE_ATTEMPTS", "zero", 1);
  EXPECT_THROW(StorageOptionsFromEnv(), Error);
  unsetenv("SLUICE_STORAGE_ATTEMPTS");
  unsetenv("SLUICE_STORAGE_TIMEOUT");
}

// The standard AWS configuration, in order: the shared config file's profile, AWS's variables, then
// Sluice's SLUICE_STORAGE_* overrides; the defaults are the AWS SDK for C++'s.
TEST(StorageRetry, AwsConfigurationAndItsOverrides) {
  const char* vars[] = {"AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_MAX_ATTEMPTS", "AWS_RETRY_MODE", "AWS_CA_BUNDLE",
                        "SLUICE_STORAGE_ATTEMPTS", "SLUICE_STORAGE_CONNECT_TIMEOUT", "SLUICE_STORAGE_STALL_TIMEOUT",
                        "SLUICE_STORAGE_CA_BUNDLE"};
  for (const char* v : vars) unsetenv(v);
  const std::string config = ::testing::TempDir() + "/sluice_aws_retry_config";
  setenv("AWS_CONFIG_FILE", config.c_str(), 1);
  auto write = [&](const char* text) {
    FILE* f = std::fopen(config.c_str(), "w");
    std::fputs(text, f);
    std::fclose(f);
  };
  std::remove(config.c_str());
  StorageOptions o = StorageOptionsFromEnv();
  EXPECT_EQ(o.attempts, 3);
  EXPECT_EQ(o.attempts_from, "the default of retry mode standard");
  EXPECT_DOUBLE_EQ(o.connect_timeout_s, 1);
  EXPECT_DOUBLE_EQ(o.stall_timeout_s, 3);
  EXPECT_TRUE(o.ca_bundle.empty());

  write("[default]\nmax_attempts = 4\nconnect_timeout = 0.5\nread_timeout = 2.2\nca_bundle = /ca/file.pem\n\n"
        "[profile other]\nretry_mode = legacy\n");
  o = StorageOptionsFromEnv();
  EXPECT_EQ(o.attempts, 4);
  EXPECT_EQ(o.attempts_from, "max_attempts in " + config);
  EXPECT_DOUBLE_EQ(o.connect_timeout_s, 0.5);
  EXPECT_DOUBLE_EQ(o.stall_timeout_s, 3);  // libcurl's low-speed time: whole seconds, rounded up
  EXPECT_EQ(o.ca_bundle, "/ca/file.pem");
  setenv("AWS_PROFILE", "other", 1);
  o = StorageOptionsFromEnv();
  EXPECT_EQ(o.attempts, 5);
  EXPECT_EQ(o.retry_mode, "legacy");
  EXPECT_TRUE(o.ca_bundle.empty());
  setenv("AWS_RETRY_MODE", "adaptive", 1);
  EXPECT_EQ(StorageOptionsFromEnv().attempts, 3);
  unsetenv("AWS_PROFILE");
  unsetenv("AWS_RETRY_MODE");

  setenv("AWS_MAX_ATTEMPTS", "7", 1);
  setenv("AWS_CA_BUNDLE", "/env/ca.pem", 1);
  o = StorageOptionsFromEnv();
  EXPECT_EQ(o.attempts, 7);
  EXPECT_EQ(o.attempts_from, "AWS_MAX_ATTEMPTS");
  EXPECT_EQ(o.ca_bundle, "/env/ca.pem");
  setenv("SLUICE_STORAGE_ATTEMPTS", "2", 1);
  setenv("SLUICE_STORAGE_CONNECT_TIMEOUT", "4", 1);
  setenv("SLUICE_STORAGE_STALL_TIMEOUT", "6", 1);
  setenv("SLUICE_STORAGE_CA_BUNDLE", "/sluice/ca.pem", 1);
  o = StorageOptionsFromEnv();
  EXPECT_EQ(o.attempts, 2);
  EXPECT_EQ(o.attempts_from, "SLUICE_STORAGE_ATTEMPTS");
  EXPECT_DOUBLE_EQ(o.connect_timeout_s, 4);
  EXPECT_DOUBLE_EQ(o.stall_timeout_s, 6);
  EXPECT_EQ(o.ca_bundle, "/sluice/ca.pem");
  for (const char* v : {"SLUICE_STORAGE_ATTEMPTS", "SLUICE_STORAGE_CONNECT_TIMEOUT", "SLUICE_STORAGE_STALL_TIMEOUT",
                        "SLUICE_STORAGE_CA_BUNDLE"})
    unsetenv(v);

  auto error_of = [] {
    try {
      StorageOptionsFromEnv();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const char* bad : {"0", "2.5", "1e10", "three"}) {
    setenv("AWS_MAX_ATTEMPTS", bad, 1);
    EXPECT_NE(error_of().find(std::string("AWS_MAX_ATTEMPTS='") + bad + "'"), std::string::npos) << bad;
  }
  unsetenv("AWS_MAX_ATTEMPTS");
  setenv("AWS_RETRY_MODE", "fast", 1);
  EXPECT_NE(error_of().find("AWS_RETRY_MODE='fast' is not standard, legacy or adaptive"), std::string::npos);
  unsetenv("AWS_RETRY_MODE");
  write("[default]\nread_timeout = soon\n");
  EXPECT_NE(error_of().find("read_timeout of profile 'default' in " + config + "='soon'"), std::string::npos)
      << error_of();
  for (const char* v : vars) unsetenv(v);
  std::remove(config.c_str());
}

TEST(AwsConfig, EnvironmentAndProfiles) {
  const std::string dir = ::testing::TempDir();
  const std::string creds = dir + "/sluice_aws_credentials";
  FILE* f = std::fopen(creds.c_str(), "w");
  std::fputs("[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = s1\n\n[other]\n"
             "aws_access_key_id=AKOTHER\naws_secret_access_key=s2\naws_session_token = tok\n", f);
  std::fclose(f);
  for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION",
                        "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE",
                        "SLUICE_S3_ADDRESSING"})
    unsetenv(v);
  setenv("AWS_SHARED_CREDENTIALS_FILE", creds.c_str(), 1);
  setenv("AWS_CONFIG_FILE", (dir + "/sluice_no_such_config").c_str(), 1);
  AwsConfig c = LoadAwsConfig();
  EXPECT_EQ(c.key.access_key, "AKDEFAULT");
  EXPECT_EQ(c.key.region, "us-east-1");
  EXPECT_EQ(c.endpoint, "https://s3.us-east-1.amazonaws.com");
  EXPECT_FALSE(c.path_style);
  setenv("AWS_PROFILE", "other", 1);
  setenv("AWS_REGION", "eu-west-1", 1);
  setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000/", 1);
  c = LoadAwsConfig();
  EXPECT_EQ(c.key.access_key, "AKOTHER");
  EXPECT_EQ(c.key.session_token, "tok");
  EXPECT_EQ(c.key.region, "eu-west-1");
  EXPECT_EQ(c.endpoint, "http://127.0.0.1:9000");
  EXPECT_TRUE(c.path_style);
  const auto shared = SharedAwsConfig();
  EXPECT_EQ(SharedAwsConfig(), shared);  // unchanged environment: the same object
  setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secretenv", 1);
  EXPECT_EQ(LoadAwsConfig().key.access_key, "AKENV");
  EXPECT_EQ(SharedAwsConfig()->key.access_key, "AKENV");  // a changed variable reloads
  setenv("AWS_PROFILE", "missing", 1);
  unsetenv("AWS_ACCESS_KEY_ID");
  try {
    LoadAwsConfig();
    FAIL() << "a missing profile must throw";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("s2"), std::string::npos);  // no secret in the message
    EXPECT_NE(std::string(e.what()).find("AWS profile 'missing' is in neither " + creds), std::string::npos) << e.what();
  }
  // A profile of the config file alone (its keys there, or none: anonymous) is found there.
  const std::string config = dir + "/sluice_aws_config_profiles";
  f = std::fopen(config.c_str(), "w");
  std::fputs("[profile missing]\nregion = ap-south-1\naws_access_key_id = AKCONFIG\naws_secret_access_key = s3\n\n"
             "[profile bare]\nread_timeout = 1\n", f);
  std::fclose(f);
  setenv("AWS_CONFIG_FILE", config.c_str(), 1);
  unsetenv("AWS_REGION");
  c = LoadAwsConfig();
  EXPECT_EQ(c.key.access_key, "AKCONFIG");
  EXPECT_EQ(c.key.region, "ap-south-1");
  setenv("AWS_PROFILE", "bare", 1);
  EXPECT_TRUE(LoadAwsConfig().key.access_key.empty());
  for (const char* v : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_ENDPOINT_URL", "AWS_PROFILE",
                        "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"})
    unsetenv(v);
}

}  // namespace
}  // namespace sluice
