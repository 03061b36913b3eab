export default { id: "paragraph", title: "paragraph", summary: "", async show(root) { root.textContent = "todo"; } };
