// Copy buttons: <button data-copy-target="ID" hidden> copies the text of #ID. The button stays
// hidden without JavaScript or a clipboard, so nothing on the page promises what cannot work.
for (const button of document.querySelectorAll("[data-copy-target]")) {
  if (!navigator.clipboard) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    const source = document.getElementById(button.dataset.copyTarget);
    const label = button.textContent;
    try {
      await navigator.clipboard.writeText(source.textContent);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Copy failed: select the text instead";
    }
    setTimeout(() => { button.textContent = label; }, 2000);
  });
}
