// The real node's configuration keeps pod traffic on this machine and pods off it by default.
import {
  NODE_IP,
  NODE_TAINT,
  SERVICE_CIDR,
  cniConflist,
  corefile,
  kubeProxyConfig,
  kubeletConfig,
  nodePaths,
} from '../../src/cli/node/node-config';

const paths = nodePaths({ dir: '/tmp/pelita-testenv-unit' });

describe('the real node configuration', () => {
  it('gives pods a route to Service IPs only: no default route, no masquerade', () => {
    const [bridge] = cniConflist(paths).plugins;
    expect(bridge).toMatchObject({ isDefaultGateway: false, ipMasq: false });
    expect(bridge?.ipam?.routes).toEqual([{ dst: SERVICE_CIDR }]);
  });

  it('registers the kubelet tainted, so only pods that tolerate it land there', () => {
    expect(kubeletConfig(paths).registerWithTaints).toEqual([NODE_TAINT]);
    expect(kubeletConfig(paths).address).toBe(NODE_IP);
  });

  it('keeps every listener of kube-proxy and CoreDNS on the bridge address or loopback', () => {
    const proxy = kubeProxyConfig('/k');
    expect(proxy.bindAddress).toBe(NODE_IP);
    expect(proxy.nodePortAddresses).toEqual([`${NODE_IP}/32`]);
    expect(proxy.healthzBindAddress).toMatch(/^127\.0\.0\.1:/);
    const dns = corefile('/k');
    expect(dns.match(/bind (\S+)/g)).toEqual([`bind ${NODE_IP}`, `bind ${NODE_IP}`]);
  });

  it('forwards no DNS query off the machine', () => {
    expect(corefile('/k')).not.toMatch(/forward|proxy/);
  });
});
