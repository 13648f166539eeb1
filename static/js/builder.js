// The live preview tells the server which inputs were edited since the last preview this page
// applied, so the server re-renders only the attribute rows those edits move. A name leaves
// the list only when a preview that carried its latest edit has come back: a request replaced
// by a newer one (hx-sync) or lost on the network hands its names on to the next, and an input
// edited again while its preview was on the way stays listed for the next one.
const builder = document.getElementById("builder");
if (builder) {
  const edited = new Map(); // input name -> the number of its latest edit
  let edits = 0;
  builder.addEventListener("input", (event) => {
    if (event.target.name) edited.set(event.target.name, ++edits);
  });
  builder.addEventListener("htmx:configRequest", (event) => {
    // The detail is the request's config, handed back to htmx:afterRequest.
    event.detail.editsCarried = new Map(edited);
    event.detail.parameters.edited = [...edited.keys()].join(" ");
  });
  builder.addEventListener("htmx:afterRequest", (event) => {
    if (!event.detail.successful) return;
    for (const [name, edit] of event.detail.requestConfig.editsCarried || []) {
      if (edited.get(name) === edit) edited.delete(name);
    }
  });
}
