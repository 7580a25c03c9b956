// Kubernetes' name rules (workloads/kube/kube_names.h) against the cases apimachinery's own tests
// and the core API's helpers give: DNS-1123 subdomains, qualified names, extended resource names.
#include <gtest/gtest.h>

#include <string>

#include "workloads/kube/kube_names.h"

namespace slicelab {
namespace {

TEST(K8sNames, DnsSubdomains) {
  for (const std::string ok : {"a", "nvidia.com", "gpu", "1g.10gb", "a-b.c-d", "0"})
    EXPECT_EQ(dns_subdomain_error(ok), std::nullopt) << ok;
  EXPECT_EQ(dns_subdomain_error(std::string(253, 'a')), std::nullopt);
  EXPECT_EQ(dns_subdomain_error(""), "is empty");
  EXPECT_EQ(dns_subdomain_error(std::string(254, 'a')), "is longer than 253 characters");
  EXPECT_EQ(dns_subdomain_error("g pu"),
            "holds a space (only lower-case letters, digits, '-' and '.' may appear)");
  EXPECT_EQ(dns_subdomain_error("GPU"),
            "holds 'G' (only lower-case letters, digits, '-' and '.' may appear)");
  EXPECT_EQ(dns_subdomain_error("a\nb"),
            "holds a line break (only lower-case letters, digits, '-' and '.' may appear)");
  EXPECT_EQ(dns_subdomain_error("a_b"),
            "holds '_' (only lower-case letters, digits, '-' and '.' may appear)");
  for (const std::string bad : {"-a", "a-", ".a", "a.", "a..b", "a.-b"})
    EXPECT_EQ(dns_subdomain_error(bad),
              "has a part that does not start and end with a lower-case letter or digit")
        << bad;
}

TEST(K8sNames, QualifiedNames) {
  for (const std::string ok :
       {"MyName", "my.name", "123-abc", "example.com/MyName", "a/b_c", "nvidia.com/gpu"})
    EXPECT_EQ(qualified_name_error(ok), std::nullopt) << ok;
  EXPECT_EQ(qualified_name_error(std::string(63, 'x')), std::nullopt);
  EXPECT_EQ(qualified_name_error("a/b/c"), "holds more than one '/'");
  EXPECT_EQ(qualified_name_error("/b"), "has an empty prefix before '/'");
  EXPECT_EQ(qualified_name_error("a/"), "has an empty name part");
  EXPECT_EQ(qualified_name_error(std::string(64, 'x')),
            "has a name part longer than 63 characters");
  EXPECT_EQ(qualified_name_error("Example.com/x"),
            "has a prefix 'Example.com' that holds 'E' (only lower-case letters, digits, '-' and "
            "'.' may appear)");
  EXPECT_EQ(qualified_name_error("_a"),
            "has a name part that does not start and end with a letter or digit");
  EXPECT_EQ(qualified_name_error("a b"),
            "holds a space (the name part takes letters, digits, '-', '_' and '.')");
}

TEST(K8sNames, ExtendedResourceNames) {
  for (const std::string ok :
       {"nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "example.com/Foo_1", "hami.io/vgpu-memory"})
    EXPECT_EQ(extended_resource_name_error(ok), std::nullopt) << ok;
  EXPECT_EQ(extended_resource_name_error("gpu"),
            "has no domain prefix (an extended resource is 'domain/name')");
  EXPECT_EQ(extended_resource_name_error("kubernetes.io/gpu"),
            "is in the kubernetes.io/ namespace, which is Kubernetes' own");
  EXPECT_EQ(extended_resource_name_error("x.kubernetes.io/gpu"),
            "is in the kubernetes.io/ namespace, which is Kubernetes' own");
  EXPECT_EQ(extended_resource_name_error("requests.example.com/gpu"),
            "starts with 'requests.', which quotas reserve");
  EXPECT_EQ(extended_resource_name_error("nvidia.com/g pu"),
            "holds a space (the name part takes letters, digits, '-', '_' and '.')");
  // A prefix of 253 characters is a subdomain, but not once "requests." is put before it.
  const std::string prefix = std::string(240, 'a') + ".example.com";
  ASSERT_EQ(prefix.size(), 252U);
  EXPECT_EQ(qualified_name_error(prefix + "/gpu"), std::nullopt);
  EXPECT_EQ(extended_resource_name_error(prefix + "/gpu"),
            "is too long once quotas prefix it with 'requests.'");
}

}  // namespace
}  // namespace slicelab
