export default { id: "attachments", title: "attachments", summary: "", async show(root) { root.textContent = "todo"; } };
