export default { id: "performance", title: "performance", summary: "", async show(root) { root.textContent = "todo"; } };
