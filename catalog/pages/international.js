export default { id: "international", title: "international", summary: "", async show(root) { root.textContent = "todo"; } };
