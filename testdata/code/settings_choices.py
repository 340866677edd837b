#!/usr/bin/python
# An Ansible module that sets one zone setting through the API.
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import fetch_url

API = "https://api.cloudflare.com/client/v4"


def main():
    module = AnsibleModule(argument_spec=dict(
        zone_id=dict(required=True),
        setting=dict(required=True, choices=[
            'always_use_https',
            'brotli',  # want: zone-setting-brotli
            'server_side_exclude',  # want: zone-setting-server-side-exclude
            'ssl',
        ]),
        value=dict(required=True, type='raw'),
    ))
    url = "%s/zones/%s/settings/%s" % (API, module.params['zone_id'], module.params['setting'])
    fetch_url(module, url, method="PATCH", data=module.jsonify({"value": module.params['value']}))


if __name__ == '__main__':
    main()
