import {LlmAgent, FunctionTool, BaseLlm, Runner, InMemorySessionService, type LlmRequest, type LlmResponse, type BaseLlmConnection} from '@google/adk';
import {z} from 'zod';
class M extends BaseLlm {
  constructor(){super({model:'rules/x'})}
  async *generateContentAsync(req: LlmRequest): AsyncGenerator<LlmResponse, void> {
    console.log('MODEL SEES', JSON.stringify(req.contents));
    const last = req.contents[req.contents.length-1];
    if (last?.parts?.[0]?.functionResponse) { yield {content:{role:'model',parts:[{text:'done'}]}}; return; }
    yield {content:{role:'model', parts:[{functionCall:{name:'t', args:{n:3}}}]}};
  }
  async connect(): Promise<BaseLlmConnection> { throw new Error('no'); }
}
const tool = new FunctionTool({name:'t', description:'d', parameters: z.object({n: z.number()}), requireConfirmation: true, execute: async (a, ctx) => { console.log('EXEC', ctx?.functionCallId, ctx?.invocationContext.session.id); return {ok:a.n}; }});
const agent = new LlmAgent({name:'a', model:new M(), instruction:'x', tools:[tool]});
const ss = new InMemorySessionService();
const runner = new Runner({appName:'app', agent, sessionService: ss});
await ss.createSession({appName:'app', userId:'u', sessionId:'s1'});
let confId = '';
for await (const e of runner.runAsync({userId:'u', sessionId:'s1', newMessage:{role:'user', parts:[{text:'hi'}]}})) {
  console.log('EV', JSON.stringify(e.content), e.longRunningToolIds);
  for (const p of e.content?.parts ?? []) if (p.functionCall?.name==='adk_request_confirmation') confId = p.functionCall.id!;
}
for await (const e of runner.runAsync({userId:'u', sessionId:'s1', newMessage:{role:'user', parts:[{functionResponse:{id:confId, name:'adk_request_confirmation', response:{confirmed: process.argv[2]==='yes'}}}]}})) {
  console.log('EV2', JSON.stringify(e.content));
}
