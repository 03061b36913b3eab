export default { id: "streaming", title: "streaming", summary: "", async show(root) { root.textContent = "todo"; } };
