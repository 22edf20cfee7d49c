// The chat page: the AI SDK's own `useChat` reads the server's UI message stream, so what this
// page shows is what any `useChat` app shows. Only the rendering of the message parts is ours.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import { useState } from 'react';
import { createRoot } from 'react-dom/client';

const transport = new DefaultChatTransport({ api: '/api/chat' });

function App() {
  const { messages, sendMessage, status, stop, error } = useChat({ transport });
  const [input, setInput] = useState('');
  const answering = status === 'submitted' || status === 'streaming';

  function send(event) {
    event.preventDefault();
    if (!input.trim() || answering) return;
    sendMessage({ text: input });
    setInput('');
  }

  return (
    <main data-status={status}>
      <header>
        <h1>deltafold chat</h1>
        <p>Any provider's stream, assembled by deltafold and re-encoded as the AI SDK's UI message stream · {window.DELTAFOLD_MODE}</p>
      </header>
      <ol id="messages">
        {messages.map((message) => <Message key={message.id} message={message} />)}
        {error && <li className="message error" role="alert">{error.message}</li>}
      </ol>
      <form onSubmit={send}>
        <input
          id="question"
          aria-label="Your question"
          placeholder="Ask something…"
          value={input}
          onChange={(event) => setInput(event.target.value)}
        />
        {answering
          ? <button id="stop" type="button" onClick={() => stop()}>Stop</button>
          : <button id="send" type="submit" disabled={!input.trim()}>Send</button>}
      </form>
    </main>
  );
}

function Message({ message }) {
  return (
    <li className="message" data-role={message.role}>
      {message.parts.map((part, index) => <Part key={index} part={part} />)}
      {message.metadata?.usage && <Usage usage={message.metadata.usage} model={message.metadata.model} />}
    </li>
  );
}

function Part({ part }) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type === 'reasoning') {
    return (
      <p className="reasoning">
        <span className="reasoning-label">Reasoning</span>
        {part.text}
      </p>
    );
  }
  if (part.type === 'source-url') {
    return <a className="source" href={part.url}>{part.title ?? part.url}</a>;
  }
  if (part.type === 'dynamic-tool' || part.type.startsWith('tool-')) {
    const name = part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length);
    return (
      <div className="tool" data-state={part.state} data-tool-call-id={part.toolCallId}>
        <span className="tool-name">{name}</span>
        <span className="tool-state">{TOOL_STATES[part.state] ?? part.state}</span>
        <code className="tool-input">{part.input === undefined ? '' : JSON.stringify(part.input)}</code>
      </div>
    );
  }
  return null;
}

const TOOL_STATES = {
  'input-streaming': 'arguments arriving…',
  'input-available': 'arguments complete',
  'output-available': 'done',
  'output-error': 'failed',
};

function Usage({ usage, model }) {
  const detail = (count, what) => (count == null ? '' : ` (${count} ${what})`);
  return (
    <footer className="answer-footer">
      <span className="usage">
        Usage: {usage.inputTokens} input tokens{detail(usage.cachedInputTokens, 'cached')} ·{' '}
        {usage.outputTokens} output{detail(usage.reasoningTokens, 'reasoning')} · {usage.totalTokens} total
      </span>
      {model && <span className="model">{model}</span>}
    </footer>
  );
}

createRoot(document.getElementById('root')).render(<App />);
