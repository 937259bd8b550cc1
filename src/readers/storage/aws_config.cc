#include "readers/storage/aws_config.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>

#include <sluice/error.h>

namespace sluice {

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
  return s.substr(b);
}

// section -> key -> value of an INI file such as ~/.aws/credentials; {} if it cannot be opened.
std::map<std::string, std::map<std::string, std::string>> ReadIni(const std::string& path) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::ifstream f(path);
  std::string line, section;
  while (std::getline(f, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = Trim(line.substr(1, line.size() - 2));
      continue;
    }
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[section][Trim(line.substr(0, eq))] = Trim(line.substr(eq + 1));
  }
  return out;
}

std::string HomeFile(const char* env, const char* rel) {
  std::string p = Env(env);
  if (!p.empty()) return p;
  const std::string home = Env("HOME");
  return home.empty() ? std::string() : home + "/" + rel;
}

}  // namespace

AwsConfig LoadAwsConfig() {
  AwsConfig c;
  std::string profile = Env("AWS_PROFILE");
  if (profile.empty()) profile = "default";
  c.key.access_key = Env("AWS_ACCESS_KEY_ID");
  c.key.secret_key = Env("AWS_SECRET_ACCESS_KEY");
  c.key.session_token = Env("AWS_SESSION_TOKEN");
  if (c.key.access_key.empty()) {
    // The credentials file's [NAME], else the config file's [profile NAME] ([default]): the AWS CLI
    // and SDKs read keys from either, and a profile may live in the config file alone (its retry
    // and timeout settings, retry.h). A profile named by AWS_PROFILE and in neither is an error.
    const std::string path = HomeFile("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
    const std::string config = HomeFile("AWS_CONFIG_FILE", ".aws/config");
    std::map<std::string, std::string> keys;
    bool found = false;
    if (!path.empty()) {
      auto ini = ReadIni(path);
      if (auto it = ini.find(profile); it != ini.end()) keys = std::move(it->second), found = true;
    }
    if (!found && !config.empty()) {
      auto ini = ReadIni(config);
      auto it = ini.find(profile == "default" ? "default" : "profile " + profile);
      if (it == ini.end() && profile == "default") it = ini.find("profile default");
      if (it != ini.end()) keys = std::move(it->second), found = true;
    }
    if (found) {
      c.key.access_key = keys["aws_access_key_id"];
      c.key.secret_key = keys["aws_secret_access_key"];
      c.key.session_token = keys["aws_session_token"];
    } else if (!Env("AWS_PROFILE").empty() && !(path.empty() && config.empty())) {
      throw Error("AWS profile '" + profile + "' is in neither " + (path.empty() ? "(no credentials file)" : path) +
                  " nor " + (config.empty() ? "(no config file)" : config));
    }
  }
  if (!c.key.access_key.empty() && c.key.secret_key.empty())
    throw Error("AWS access key id is set but the secret access key is not (AWS_SECRET_ACCESS_KEY or "
                "aws_secret_access_key of profile '" + profile + "')");
  c.key.region = Env("AWS_REGION");
  if (c.key.region.empty()) c.key.region = Env("AWS_DEFAULT_REGION");
  if (c.key.region.empty()) {
    const std::string path = HomeFile("AWS_CONFIG_FILE", ".aws/config");
    if (!path.empty()) {
      auto ini = ReadIni(path);
      const std::string section = profile == "default" ? "default" : "profile " + profile;
      c.key.region = ini[section]["region"];
    }
  }
  if (c.key.region.empty()) c.key.region = "us-east-1";
  c.endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (c.endpoint.empty()) c.endpoint = Env("AWS_ENDPOINT_URL");
  const bool custom = !c.endpoint.empty();
  if (!custom) c.endpoint = "https://s3." + c.key.region + ".amazonaws.com";
  while (!c.endpoint.empty() && c.endpoint.back() == '/') c.endpoint.pop_back();
  if (c.endpoint.rfind("http://", 0) != 0 && c.endpoint.rfind("https://", 0) != 0)
    throw Error("AWS_ENDPOINT_URL must start with http:// or https://, got '" + c.endpoint + "'");
  const std::string style = Env("SLUICE_S3_ADDRESSING");
  if (style.empty()) {
    c.path_style = custom;
  } else if (style == "path" || style == "virtual") {
    c.path_style = style == "path";
  } else {
    throw Error("SLUICE_S3_ADDRESSING must be 'path' or 'virtual', got '" + style + "'");
  }
  return c;
}

AwsProfileSettings LoadAwsProfileSettings() {
  AwsProfileSettings out;
  out.profile = Env("AWS_PROFILE");
  if (out.profile.empty()) out.profile = "default";
  out.file = HomeFile("AWS_CONFIG_FILE", ".aws/config");
  if (out.file.empty()) return out;
  auto ini = ReadIni(out.file);
  auto it = ini.find(out.profile == "default" ? "default" : "profile " + out.profile);
  if (it == ini.end() && out.profile == "default") it = ini.find("profile default");
  if (it != ini.end()) out.values = std::move(it->second);
  return out;
}

AwsProfileSettings SharedAwsProfileSettings() {
  std::string key;
  for (const char* v : {"AWS_PROFILE", "AWS_CONFIG_FILE", "HOME"}) {
    const char* value = std::getenv(v);
    key.append(v).append(value ? "=" : "!").append(value ? value : "").push_back('\0');
  }
  const std::string file = HomeFile("AWS_CONFIG_FILE", ".aws/config");
  struct stat st;
  if (!file.empty() && ::stat(file.c_str(), &st) == 0)
    key += std::to_string(st.st_size) + "/" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  static std::mutex mu;
  static std::string cached_key;
  static std::shared_ptr<const AwsProfileSettings> cached;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (cached && key == cached_key) return *cached;
  }
  auto settings = std::make_shared<const AwsProfileSettings>(LoadAwsProfileSettings());
  std::lock_guard<std::mutex> lock(mu);
  cached_key = std::move(key);
  cached = settings;
  return *settings;
}

std::shared_ptr<const AwsConfig> SharedAwsConfig() {
  static const char* const kVars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                      "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
                                      "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL",
                                      "AWS_ENDPOINT_URL_S3", "SLUICE_S3_ADDRESSING", "HOME"};
  std::string key;
  for (const char* v : kVars) {
    const char* value = std::getenv(v);
    key.append(v).append(value ? "=" : "!").append(value ? value : "").push_back('\0');
  }
  static std::mutex mu;
  static std::string cached_key;
  static std::shared_ptr<const AwsConfig> cached;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (cached && key == cached_key) return cached;
  }
  auto config = std::make_shared<const AwsConfig>(LoadAwsConfig());
  std::lock_guard<std::mutex> lock(mu);
  cached_key = std::move(key);
  cached = config;
  return config;
}

}  // namespace sluice
