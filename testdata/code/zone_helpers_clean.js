// Paths of other services handed to helpers whose names do not say zone, account or the
// API as a word: a time zone, a drop zone and a config loader are not this API.
import { getTimezone, dropzoneUpload, cfgFetch } from "./util";

export async function load(tz, file) {
  await getTimezone(tz, "/filters");
  await dropzoneUpload(file, "/firewall/rules");
  await cfgFetch("/rate_limits");
  await sendPostRequest({ file }, "/filters");
}
