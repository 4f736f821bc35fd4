import { AbstractChat, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

/** The plain state a Chat needs outside React: arrays and fields, nothing reactive. */
class PlainChatState<M extends UIMessage> implements ChatState<M> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: M[] = [];

  pushMessage = (message: M) => {
    this.messages = [...this.messages, message];
  };

  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };

  replaceMessage = (index: number, message: M) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };

  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's own Chat (the class behind `useChat`), runnable in Node for tests. */
export class NodeChat<M extends UIMessage = UIMessage> extends AbstractChat<M> {
  constructor(init: Omit<ChatInit<M>, 'messages'>) {
    super({ ...init, state: new PlainChatState<M>() });
  }

  /** Resolves once `predicate` holds, polling the chat state. */
  async until(predicate: (chat: this) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) {
        throw new Error(
          `chat condition not met; status ${this.status}, messages ${JSON.stringify(this.messages)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
