import { describe, expect, it } from "vitest";
import { type AddressClass, classifyAddress, upstreamAddressProblem, upstreamUrlProblem } from "./address-policy";

describe("classifyAddress", () => {
  it.each<[string, AddressClass]>([
    // IPv4
    ["1.1.1.1", "public"],
    ["8.8.8.8", "public"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "reserved"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["9.255.255.255", "public"],
    ["11.0.0.0", "public"],
    ["172.15.255.255", "public"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.0.1", "private"],
    ["192.169.0.1", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.0.1", "link-local"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["100.100.100.200", "metadata"],
    ["168.63.129.16", "metadata"],
    ["100.63.255.255", "public"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["100.128.0.0", "public"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.99", "reserved"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    // IPv6
    ["2606:4700:4700::1111", "public"],
    ["2001:4860:4860::8888", "public"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["FEBF::1", "link-local"],
    ["fec0::1", "private"],
    ["fc00::1", "unique-local"],
    ["fd12:3456:789a::1", "unique-local"],
    ["fd00:ec2::254", "metadata"],
    ["fd00:ec2::253", "unique-local"],
    ["ff02::1", "multicast"],
    ["::ffff:10.0.0.1", "ipv4-mapped"],
    ["::ffff:7f00:1", "ipv4-mapped"],
    ["::FFFF:1.1.1.1", "ipv4-mapped"],
    ["::127.0.0.1", "reserved"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::1.1.1.1", "public"],
    ["64:ff9b:1::a00:1", "reserved"],
    ["100::1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2001:0db8:85a3:0000:0000:8a2e:0370:7334", "reserved"],
    ["2001::1", "reserved"],
    ["2002:c0a8:1::1", "reserved"],
    ["3fff::1", "reserved"],
    ["1:2:3:4:5:6:7::", "reserved"],
    // not addresses
    ["", "invalid"],
    ["localhost", "invalid"],
    ["example.com", "invalid"],
    ["256.1.1.1", "invalid"],
    ["1.2.3", "invalid"],
    ["01.2.3.4", "invalid"],
    ["1.2.3.4.5", "invalid"],
    [" 1.2.3.4", "invalid"],
    ["[::1]", "invalid"],
    ["1::2::3", "invalid"],
    [":::", "invalid"],
    ["1:2:3:4:5:6:7:8:9", "invalid"],
    ["1:2:3:4:5:6:7", "invalid"],
    ["1:2:3:4:5:6:7:8::", "invalid"],
    ["12345::1", "invalid"],
    ["fe80::1%", "invalid"],
    ["::ffff:1.2.3.256", "invalid"],
    ["::1.2.3.4:5", "invalid"],
  ])("%j → %s", (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe("upstreamAddressProblem", () => {
  it.each<[string, boolean, string | null]>([
    ["1.1.1.1", false, null],
    ["2606:4700:4700::1111", false, null],
    ["64:ff9b::1.1.1.1", false, null],
    [
      "169.254.169.254",
      false,
      "resolves to 169.254.169.254, a cloud metadata address: upstream servers must be public",
    ],
    ["169.254.169.254", true, "a cloud metadata address"],
    ["10.0.0.1", false, "a private network address"],
    ["100.64.0.1", false, "carrier-grade NAT"],
    ["127.0.0.1", false, "resolves to 127.0.0.1, a loopback address: upstream servers must be public"],
    ["127.0.0.1", true, null],
    ["::1", true, null],
    ["::1", false, "a loopback address"],
    ["0.0.0.0", true, "the unspecified address"],
    ["::ffff:127.0.0.1", true, "an IPv4-mapped IPv6 address"],
    ["::ffff:1.1.1.1", false, "an IPv4-mapped IPv6 address"],
    ["64:ff9b::10.0.0.1", false, "a NAT64 address of 10.0.0.1, a private network address"],
    ["64:ff9b::7f00:1", true, "a NAT64 address of 127.0.0.1, a loopback address"],
    ["fd00:ec2::254", false, "a cloud metadata address"],
    ["fe80::1%eth0", false, "a link-local address"],
    ["fd12::1", false, "a unique local"],
    ["ff02::1", false, "a multicast address"],
    ["2001:db8::1", false, "a reserved, documentation or special-purpose address"],
    ["not-an-ip", false, "not a valid IP address"],
  ])("%s (allowLoopback: %s) → %s", (ip, allowLoopback, expected) => {
    const problem = upstreamAddressProblem(ip, { allowLoopback });
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe("upstreamUrlProblem", () => {
  it.each<[string, boolean, string | null]>([
    ["https://mcp.example.com/mcp", false, null],
    ["https://mcp.example.com:8443/mcp", false, null],
    ["https://mcp.example.com:22/mcp", false, null],
    ["https://1.1.1.1/mcp", false, null],
    ["https://[2606:4700:4700::1111]/mcp", false, null],
    ["http://mcp.example.com/mcp", false, "uses http://"],
    ["http://mcp.example.com/mcp", true, "uses http://"],
    ["http://localhost:3000/mcp", true, null],
    ["http://127.0.0.1:3000/mcp", true, null],
    ["http://[::1]:3000/mcp", true, null],
    ["http://tools.localhost/mcp", true, null],
    ["http://localhost:3000/mcp", false, "uses http://"],
    [
      "http://localhost:3000/mcp",
      false,
      "the loopback exception is off: for a server on this machine, start Loadout with LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1",
    ],
    ["http://127.0.0.1:3000/mcp", false, "LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1"],
    ["https://localhost/mcp", false, "a loopback name"],
    ["https://127.0.0.1/mcp", false, "a loopback address"],
    ["https://0x7f.1/mcp", false, "a loopback address"],
    ["https://2130706433/mcp", false, "a loopback address"],
    ["https://169.254.169.254/latest/meta-data", false, "a cloud metadata address"],
    ["https://10.0.0.5/mcp", true, "a private network address"],
    ["https://[::ffff:127.0.0.1]/mcp", true, "an IPv4-mapped IPv6 address"],
    ["https://[fd00:ec2::254]/mcp", false, "a cloud metadata address"],
    ["https://user:pass@mcp.example.com/mcp", false, "contains credentials"],
    ["https://token@mcp.example.com/mcp", false, "contains credentials"],
    ["ftp://mcp.example.com/mcp", false, "uses ftp:"],
    ["file:///etc/passwd", true, "uses file:"],
    ["mcp.example.com/mcp", false, "not a valid URL"],
    ["https://", false, "not a valid URL"],
    ["", false, "not a valid URL"],
  ])("%s (allowLoopback: %s) → %s", (url, allowLoopback, expected) => {
    const problem = upstreamUrlProblem(url, { allowLoopback });
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });

  it("refuses loopback by default", () => {
    expect(upstreamUrlProblem("https://127.0.0.1/mcp")).toContain("loopback");
  });
});
