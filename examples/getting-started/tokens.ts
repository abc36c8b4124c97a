import { buildReactAgent, HumanMessage, isTokensEvent, ScriptedChat } from "nodestep";

const chat = new ScriptedChat(["Green tea is best at 80 °C."]);
const agent = buildReactAgent(chat, { tools: [], stream: true }); // stream: true sends "tokens"

const input = { messages: [HumanMessage({ content: "How hot should green tea be?" })] };
for await (const event of agent.stream(input, { modes: ["tokens"] })) {
  if (isTokensEvent(event) && event.data.contentDelta) {
    console.log(JSON.stringify(event.data.contentDelta)); // in a UI: append it to the answer
  }
}
