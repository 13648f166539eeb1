// The live preview tells the server which inputs were edited since the last preview this page
// applied, so the server re-renders only the attribute rows those edits move. A name leaves
// the list only when a preview that carried it has come back: a request replaced by a newer
// one (hx-sync) or lost on the network hands its names on to the next.
const builder = document.getElementById("builder");
if (builder) {
  const edited = new Set();
  builder.addEventListener("input", (event) => {
    if (event.target.name) edited.add(event.target.name);
  });
  builder.addEventListener("htmx:configRequest", (event) => {
    event.detail.parameters.edited = [...edited].join(" ");
  });
  builder.addEventListener("htmx:afterRequest", (event) => {
    if (!event.detail.successful) return;
    const carried = event.detail.requestConfig.parameters.edited || "";
    for (const name of carried.split(" ")) edited.delete(name);
  });
}
